import type * as z from 'zod/mini';
import type { FieldValue } from './ledger/entity';
import type { ApplyDecision, StepResult } from './ledger/entity-ledger';
import type { EventKind } from './ledger/event-version';
import type { Outcome } from './outcome';
import type { CallOptions, PlatformCaller } from './platform-caller';
import type { ServiceName } from './platform-services';

/**
 * What one action is: the contract every module under `lambdas/actions/` fulfils. The shared
 * code (transport, key, retries, classification, batches, the ledger) reads an action only
 * through this interface and names none.
 */
export interface Action<Name extends string = string, Message = unknown> {
  /** Handler file, EventBridge detail-type, queue and JSON Schema name; never changes once deployed. */
  readonly name: Name;
  readonly service: ServiceName;
  /** The service's path suffix, e.g. `addOrUpdateCampaignRecord` or `add-user`. */
  readonly endpoint: string;
  /** A read answers with a result (result bus or direct caller) and takes no lease. */
  readonly kind: 'read' | 'write';
  /** The public contract of an SQS body or EventBridge `detail` (and `schemas/`). */
  readonly schema: z.ZodMiniType<Message>;
  /** The action's own request properties; the service adds its common ones. */
  requestFields(message: Message): Readonly<Record<string, unknown>>;
  /** Sends the message and reads the answer: idempotency overrides, the result of a read. */
  execute(message: Message, platform: PlatformCaller, call: CallOptions): Promise<Outcome>;
  /** A write's place in its entity's order; reads have none. */
  readonly ordering?: OrderedSteps<Message>;
  /**
   * Whether this message removes something (a user, a record): such messages pass the
   * deployment's mass-delete brake. Absent: the action never removes anything.
   */
  destructive?(message: Message): boolean;
}

/**
 * What a write means for its entity's order: which entity, which kind of event, which fields
 * it sets; and how it sends only what the ledger found fresh. The ledger decides; these steps
 * talk to the platform and say what the platform holds afterwards.
 */
export interface OrderedSteps<Message> {
  readonly kind: EventKind;
  /** The entity's place; undefined when the message cannot be ordered (previewRecordId only). */
  location(message: Message, campaignRegion: string): string | undefined;
  destination?(message: Message, campaignRegion: string): string;
  destinationAddress?(message: Message): Record<string, string>;
  /** The fields the event sets, as the ledger keeps them (hashes for record data). */
  sets(message: Message): Record<string, FieldValue>;
  apply(
    message: Message,
    decision: ApplyDecision,
    platform: PlatformCaller,
    call: CallOptions,
  ): Promise<StepResult>;
}

/** Any action, whatever its message type (the registry's and the harness's view). */
// biome-ignore lint/suspicious/noExplicitAny: a list of actions of different message types
export type AnyAction = Action<string, any>;

/** The message type of an action module. */
export type MessageOf<A extends AnyAction> = A extends Action<string, infer M> ? M : never;
