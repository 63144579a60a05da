import { type AddUserMessage, addUser } from '../actions/add-user';
import { type DeleteUserMessage, deleteUser } from '../actions/delete-user';
import { userKey } from '../core/ledger/entity-key';
import { versionOf } from '../core/ledger/event-version';
import { parseLedgerDoc } from '../core/ledger/ledger-doc';
import type { LedgerStore } from '../core/ledger/ledger-store';
import type { AnyAction } from '../core/pipeline/action';
import type { Disposition } from '../core/pipeline/disposition';
import { type ProcessorDependencies, processMessage } from '../core/pipeline/message-pipeline';
import { user as userKind } from '../entities/user';
import { type Whose, whoseUser } from '../entities/user/known';
import { badRequest, ScimError } from './scim-error';
import type { ScimRequest } from './scim-http';
import { SCIM_NAME_OF, type ScimUser } from './scim-user';

/**
 * A SCIM write as an event of its user: an add-user or delete-user message, `occurredAt` the
 * time the request was received, run through the queue handlers' pipeline (`processMessage`:
 * brake, breaker, pacing, ledger, look before add) and answered with what it ended as. Never a
 * second path to the platform.
 */
const DEFAULT_RETRY_AFTER_SECONDS = 30;

/** The SCIM-facing name of each add-user field, for a refusal the admin can act on. */
const scimNames = (text: string): string =>
  text.replace(
    /\b(loginUserId|firstName|lastName|primaryEmailAddr|secondaryEmailAddr|userTemplateName|createInCloudConnect)\b/g,
    (field) => SCIM_NAME_OF[field as keyof AddUserMessage],
  );

export const addMessage = (user: ScimUser, request: ScimRequest): AddUserMessage => ({
  correlationId: `scim-${request.requestId}`,
  occurredAt: new Date(request.receivedAt).toISOString(),
  loginUserId: user.userName,
  ...user.fields,
});

const deleteMessage = (userName: string, request: ScimRequest): DeleteUserMessage => ({
  correlationId: `scim-${request.requestId}`,
  occurredAt: new Date(request.receivedAt).toISOString(),
  loginUserId: userName,
});

/** The version of the add a POST sends: a resource id derives from it. */
export const addVersion = (message: AddUserMessage, receivedAt: number): string =>
  versionOf('add', addUser.ordering?.op(message), receivedAt);

export class ScimWrites {
  readonly #processor: ProcessorDependencies;
  readonly #store: LedgerStore;
  readonly #heldDeleteSeconds: number;

  constructor(options: {
    readonly processor: ProcessorDependencies;
    readonly store: LedgerStore;
    readonly heldDeleteSeconds: number;
  }) {
    this.#processor = options.processor;
    this.#store = options.store;
    this.#heldDeleteSeconds = options.heldDeleteSeconds;
  }

  /** A delete the brake parked: never claimed done; the IdP retries after the operator decides. */
  heldByBrake(retryAfterSeconds = this.#heldDeleteSeconds): ScimError {
    return new ScimError(
      503,
      'the mass-delete brake holds this delete for an operator to release or discard; it is kept, not lost',
      undefined,
      retryAfterSeconds,
    );
  }

  /**
   * Where the ledger knows the user is: ours on the platform, someone else's there, absent; or
   * undefined while it cannot tell (never seen, or in doubt after a call that got no answer).
   */
  async ledgerPlace(userName: string): Promise<Whose | undefined> {
    const doc = parseLedgerDoc(
      await this.#store.read(userKey(userName)),
      userKind.name,
      userKind.parts,
    );
    return whoseUser(doc?.known);
  }

  /** Adds the user; throws the SCIM answer unless it ended applied or already in place. */
  async add(user: ScimUser, request: ScimRequest): Promise<void> {
    this.#mustApply(await this.#send(addUser, addMessage(user, request), request, false));
  }

  /**
   * Deletes the user; `uncounted` when the ledger knows it is gone (the delete then removes
   * nothing, so the brake does not count it). Answers `held` when the brake parked it.
   */
  async remove(
    userName: string,
    request: ScimRequest,
    uncounted: boolean,
  ): Promise<'done' | 'held'> {
    const disposition = await this.#send(
      deleteUser,
      deleteMessage(userName, request),
      request,
      uncounted,
    );
    if (disposition.kind === 'held') return 'held';
    this.#mustApply(disposition);
    return 'done';
  }

  #send(
    action: AnyAction,
    message: AddUserMessage | DeleteUserMessage,
    request: ScimRequest,
    uncounted: boolean,
  ): Promise<Disposition> {
    return processMessage(
      action,
      {
        body: JSON.stringify(message),
        decoded: message,
        sourceMessageId: `scim-${request.requestId}`,
        receiveCount: 1,
        // The IdP retries what fails: the event leaves the ledger rather than wait for a
        // redelivery that never comes.
        isLastReceive: true,
        deadline: request.deadline,
        answersCaller: true,
        source: 'scim',
        ...(uncounted ? { brakeReleased: true } : {}),
      },
      this.#processor,
    );
  }

  /** Throws the SCIM answer of a message that did not end applied. */
  #mustApply(disposition: Disposition): void {
    const { outcome } = disposition;
    if (disposition.kind === 'applied') return;
    if (disposition.kind === 'held') throw this.heldByBrake();
    if (outcome.category === 'retryable') {
      throw new ScimError(
        503,
        `the platform cannot take this now (${outcome.code}); try again later`,
        undefined,
        Math.max(1, Math.ceil((outcome.retryAfterMs ?? DEFAULT_RETRY_AFTER_SECONDS * 1000) / 1000)),
      );
    }
    if (outcome.code === 'USER_EXISTS_NOT_OURS') {
      throw new ScimError(
        409,
        'userName: a user with this userName exists on the platform and was not created by this integration',
        'uniqueness',
      );
    }
    if (outcome.code === 'INVALID_MESSAGE')
      throw badRequest('invalidValue', scimNames(outcome.message));
    throw badRequest(
      'invalidValue',
      `the platform refused the user (${outcome.code}): ${scimNames(outcome.message)}`,
    );
  }
}
