import type * as z from 'zod/mini';
import type { EventRank } from '../ledger/event-version';
import type { CallOptions, PlatformCaller } from '../platform/platform-caller';
import type { ServiceName } from '../platform/platform-services';
import type { Outcome } from './outcome';

/**
 * What one action is: the contract every module under `lambdas/actions/` fulfils. The shared
 * code (transport, key, retries, classification, batches, the ledger) reads an action only
 * through this interface and names none. A read sends its own request (`execute`); a write has
 * one path, its entity's ledger (`ordering`), whose platform steps send its requests.
 */
export type Action<Name extends string = string, Message = unknown> =
  | ReadAction<Name, Message>
  | WriteAction<Name, Message>;

/** What every action has, read or write. */
interface ActionBase<Name extends string, Message> {
  /** Handler file, EventBridge detail-type, queue and JSON Schema name; never changes once deployed. */
  readonly name: Name;
  readonly service: ServiceName;
  /** The service's path suffix, e.g. `addOrUpdateCampaignRecord` or `add-user`. */
  readonly endpoint: string;
  /** The public contract of an SQS body or EventBridge `detail` (and `schemas/`). */
  readonly schema: z.ZodMiniType<Message>;
  /** The action's own request properties; the service adds its common ones. */
  requestFields(message: Message): Readonly<Record<string, unknown>>;
  /**
   * Whether this message removes something (a user, a record): such messages pass the
   * deployment's mass-delete brake. Absent: the action never removes anything.
   */
  destructive?(message: Message): boolean;
}

/** A read answers with a result (result bus or direct caller) and takes no lease. */
export interface ReadAction<Name extends string = string, Message = unknown>
  extends ActionBase<Name, Message> {
  readonly kind: 'read';
  /** Sends the message and reads the answer: the result of the read. */
  execute(message: Message, platform: PlatformCaller, call: CallOptions): Promise<Outcome>;
  readonly ordering?: never;
}

/** A write is ordered with its entity's other events; the entity's platform steps send it. */
export interface WriteAction<Name extends string = string, Message = unknown>
  extends ActionBase<Name, Message> {
  readonly kind: 'write';
  /** The write's place in its entity's order. */
  readonly ordering: Ordering<Message>;
  readonly execute?: never;
}

/** The entity kinds the ledger orders (lambdas/entities/). */
export type EntityKindName = 'record-family' | 'user';

/**
 * Who a message is about: the entity's ids, or, for a record named only by its previewRecordId,
 * what the ledger needs to find out which family it is (one search).
 */
export type EntityName =
  | { readonly id: unknown }
  | {
      readonly lookup: {
        readonly region: string;
        readonly campaignName: string;
        readonly previewRecordId: string;
      };
    };

/**
 * What a write means for its entity: which entity, and what it does there in the entity model's
 * terms. The ledger replays an entity's events and decides what to send; the action only says
 * what its message is.
 */
export interface Ordering<Message> {
  readonly entity: EntityKindName;
  /** Breaks same-millisecond ties: an add before a change, a change before a move, a move before a delete. */
  readonly rank: EventRank;
  name(message: Message, campaignRegion: string): EntityName;
  /** The event's operation on the entity model (`RecordOp`, `UserOp`). */
  op(message: Message): unknown;
}

/** Any action, whatever its message type (the registry's and the harness's view). */
// biome-ignore lint/suspicious/noExplicitAny: a list of actions of different message types
export type AnyAction = Action<string, any>;

/** The message type of an action module. */
export type MessageOf<A extends AnyAction> = A extends Action<string, infer M> ? M : never;
