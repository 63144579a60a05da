/**
 * A verified snapshot: the export's bytes checked against its manifest, every row parsed as the
 * message it would become, and the refusals the issue lists: a hash or count mismatch, an empty
 * export, duplicate keys, rows outside the scope, a time in the future. A refusal names the
 * problem and the lines, never a value (rows hold personal data).
 */
import { createHash } from 'node:crypto';
import {
  type AddOrUpdateCampaignRecordMessage,
  type AddUserMessage,
  parseMessage,
} from '../actions';
import type { PlatformRegion } from '../core/platform/regions';
import type { InputItem } from '../input/input-format';
import { userCoverage } from './coverage';
import { type ExportFormat, type Manifest, SnapshotRefused } from './manifest';
import type { RefusalCode } from './reconcile-codes';
import type { ReconcileScope, RecordsScope, UsersScope } from './scope';

/** One decoded row of an export, or why its line could not be read: the bulk loader's item. */
export type DecodedRow = InputItem;

/** Turns an export's text into rows: the bulk loader's reading API, passed in by the caller. */
export type ExportDecoder = (text: string, format: ExportFormat) => readonly DecodedRow[];

export interface UserRow {
  readonly line: number;
  readonly loginUserId: string;
  /** The roster's status column marks a leaver. */
  readonly leaver: boolean;
  /** The add-user message an active row asks for (undefined for a leaver). */
  readonly message: AddUserMessage | undefined;
  /** The template the row shows, if any (a leaver's row need not): what a covers rule reads. */
  readonly userTemplateName?: string | undefined;
}

export interface RecordRow {
  readonly line: number;
  readonly region: PlatformRegion;
  readonly campaignName: string;
  readonly clientId: string;
  readonly message: AddOrUpdateCampaignRecordMessage;
}

interface SnapshotBase {
  readonly manifest: Manifest;
  /** `<first 12 hex of the SHA-256>`: names the snapshot in correlation ids and plans. */
  readonly id: string;
}

export type Snapshot =
  | (SnapshotBase & {
      readonly kind: 'users';
      readonly scope: UsersScope;
      readonly rows: readonly UserRow[];
    })
  | (SnapshotBase & {
      readonly kind: 'records';
      readonly scope: RecordsScope;
      readonly rows: readonly RecordRow[];
    });

export interface VerifyOptions {
  readonly manifest: Manifest;
  readonly scope: ReconcileScope;
  readonly bytes: Uint8Array;
  readonly decode: ExportDecoder;
  /** The deployment's campaign region: a record row without `region` is there. */
  readonly campaignRegion: PlatformRegion;
  readonly now: number;
}

/** A manifest may be ahead of this machine's clock by this much. */
const CLOCK_SKEW_MS = 5 * 60_000;
/** Lines listed in a refusal; the rest are counted. */
const LISTED = 20;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const listing = (problems: readonly string[]): string =>
  problems.length <= LISTED
    ? problems.join('; ')
    : `${problems.slice(0, LISTED).join('; ')}; and ${problems.length - LISTED} more`;

const refuseRows = (code: RefusalCode, what: string, problems: readonly string[]): never => {
  throw new SnapshotRefused(code, `${problems.length} ${what}: ${listing(problems)}`);
};

const duplicates = (keys: readonly { key: string; line: number }[], name: string): void => {
  const lines = new Map<string, number[]>();
  for (const { key, line } of keys) lines.set(key, [...(lines.get(key) ?? []), line]);
  const repeated = [...lines.values()].filter((l) => l.length > 1);
  if (repeated.length > 0) {
    refuseRows(
      'DUPLICATE_KEYS',
      `${name} appear more than once (which row is right cannot be known)`,
      repeated.map((l) => `lines ${l.join(', ')}`),
    );
  }
};

const userRows = (
  scope: UsersScope,
  items: readonly { position: number; value: unknown }[],
): UserRow[] => {
  const problems: string[] = [];
  const outside: string[] = [];
  const rows: UserRow[] = [];
  const leaverValues = new Set(scope.leaverStatuses.map((s) => s.trim().toLowerCase()));
  for (const { position, value } of items) {
    if (!isRecord(value)) {
      problems.push(`line ${position}: is not an object`);
      continue;
    }
    const { [scope.statusColumn]: status, ...fields } = value;
    if ('occurredAt' in fields) {
      problems.push(
        `line ${position}: occurredAt: a snapshot row has none (repairs are stamped with exportedAt)`,
      );
      continue;
    }
    if (status !== undefined && typeof status !== 'string') {
      problems.push(`line ${position}: ${scope.statusColumn}: must be a string`);
      continue;
    }
    const leaver = status !== undefined && leaverValues.has(status.trim().toLowerCase());
    const loginUserId = fields.loginUserId;
    if (leaver) {
      if (typeof loginUserId !== 'string' || loginUserId === '') {
        problems.push(`line ${position}: loginUserId: is required`);
        continue;
      }
      const template = fields.userTemplateName;
      const known = {
        loginUserId,
        userTemplateName: typeof template === 'string' ? template : undefined,
      };
      // A leaver row need not show its template: only a rule it plainly fails puts it outside.
      if (scope.covers !== undefined && userCoverage(scope.covers, known) === 'no') {
        outside.push(`line ${position}`);
        continue;
      }
      rows.push({
        line: position,
        loginUserId,
        leaver,
        message: undefined,
        userTemplateName: known.userTemplateName,
      });
      continue;
    }
    const parsed = parseMessage('add-user', fields);
    if (!parsed.success) {
      problems.push(`line ${position}: not a valid add-user row: ${parsed.error}`);
      continue;
    }
    if (scope.covers !== undefined && userCoverage(scope.covers, parsed.message) !== 'yes') {
      outside.push(`line ${position}`);
      continue;
    }
    rows.push({
      line: position,
      loginUserId: parsed.message.loginUserId,
      leaver,
      message: parsed.message,
      userTemplateName: parsed.message.userTemplateName,
    });
  }
  if (problems.length > 0) refuseRows('INVALID_ROWS', 'invalid rows', problems);
  if (outside.length > 0) {
    refuseRows(
      'OUT_OF_SCOPE',
      `rows outside scope "${scope.name}" (users its covers rule does not match)`,
      outside,
    );
  }
  duplicates(
    rows.map((r) => ({ key: r.loginUserId, line: r.line })),
    'loginUserIds',
  );
  return rows;
};

const recordRows = (
  scope: RecordsScope,
  items: readonly { position: number; value: unknown }[],
  campaignRegion: PlatformRegion,
): RecordRow[] => {
  const problems: string[] = [];
  const outside: string[] = [];
  const rows: RecordRow[] = [];
  const region = scope.region ?? campaignRegion;
  const campaigns = new Set(scope.campaigns);
  for (const { position, value } of items) {
    if (isRecord(value) && 'occurredAt' in value) {
      problems.push(
        `line ${position}: occurredAt: a snapshot row has none (repairs are stamped with exportedAt)`,
      );
      continue;
    }
    const parsed = parseMessage('add-or-update-campaign-record', value);
    if (!parsed.success) {
      problems.push(
        `line ${position}: not a valid add-or-update-campaign-record row: ${parsed.error}`,
      );
      continue;
    }
    const message = parsed.message;
    if (message.previewRecordId !== undefined) {
      problems.push(
        `line ${position}: previewRecordId: a snapshot row names its record by clientId only`,
      );
      continue;
    }
    const rowRegion = message.region ?? campaignRegion;
    if (!campaigns.has(message.campaignName) || rowRegion !== region) {
      outside.push(`line ${position}`);
      continue;
    }
    rows.push({
      line: position,
      region: rowRegion,
      campaignName: message.campaignName,
      clientId: message.clientId,
      message,
    });
  }
  if (problems.length > 0) refuseRows('INVALID_ROWS', 'invalid rows', problems);
  if (outside.length > 0) {
    refuseRows(
      'OUT_OF_SCOPE',
      `rows outside scope "${scope.name}" (campaigns ${scope.campaigns.join(', ')} in ${region})`,
      outside,
    );
  }
  duplicates(
    rows.map((r) => ({ key: `${r.campaignName}\u0000${r.clientId}`, line: r.line })),
    'campaign + clientId pairs',
  );
  return rows;
};

/** Checks an export against its manifest and scope; throws `SnapshotRefused` naming the problem. */
export const verifySnapshot = (options: VerifyOptions): Snapshot => {
  const { manifest, scope, bytes } = options;
  if (manifest.kind !== scope.kind) {
    throw new SnapshotRefused(
      'SCOPE_KIND',
      `the manifest's kind is "${manifest.kind}" but scope "${scope.name}" holds ${scope.kind}`,
    );
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== manifest.sha256) {
    throw new SnapshotRefused(
      'HASH_MISMATCH',
      `${manifest.file}: its SHA-256 is ${sha256}, the manifest says ${manifest.sha256} (a partial or changed file)`,
    );
  }
  if (Date.parse(manifest.exportedAt) > options.now + CLOCK_SKEW_MS) {
    throw new SnapshotRefused('FUTURE', `exportedAt ${manifest.exportedAt} is in the future`);
  }
  const decoded = options.decode(Buffer.from(bytes).toString('utf8'), manifest.format);
  if (decoded.length === 0) {
    throw new SnapshotRefused(
      'EMPTY',
      `${manifest.file} holds no rows: an empty export is never planned (it would delete the whole scope)`,
    );
  }
  if (decoded.length !== manifest.rowCount) {
    throw new SnapshotRefused(
      'COUNT_MISMATCH',
      `${manifest.file} holds ${decoded.length} rows, the manifest says ${manifest.rowCount} (truncated or padded)`,
    );
  }
  const unreadable = decoded.flatMap((row) =>
    'error' in row ? [`line ${row.position}: ${row.error}`] : [],
  );
  if (unreadable.length > 0) refuseRows('INVALID_ROWS', 'unreadable rows', unreadable);
  const items = decoded.filter(
    (row): row is { position: number; value: unknown } => 'value' in row,
  );
  const base = { manifest, id: sha256.slice(0, 12) };
  return scope.kind === 'users'
    ? { ...base, kind: 'users', scope, rows: userRows(scope, items) }
    : { ...base, kind: 'records', scope, rows: recordRows(scope, items, options.campaignRegion) };
};
