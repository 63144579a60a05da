/**
 * When a message that failed retryably is tried again: exponential backoff per receive, kept
 * in the message's own SQS visibility, for a retry window measured from when the message was
 * sent. The stack derives the queue's `maxReceiveCount` from the same schedule, so SQS's own
 * redrive only catches what the handler could not dead-letter itself (a crash).
 */
export interface RetrySchedule {
  /** How long a message is retried, from its SQS `SentTimestamp`. @default 86400 (24 h) */
  readonly windowSeconds: number;
  /** Backoff before the second receive. @default 30 */
  readonly firstDelaySeconds: number;
  /** Longest backoff between two receives (at most SQS's 12 h). @default 900 */
  readonly maxDelaySeconds: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  windowSeconds: 24 * 3600,
  firstDelaySeconds: 30,
  maxDelaySeconds: 900,
};

/** The longest visibility timeout SQS accepts. */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;

/** The most receives SQS allows before its redrive (`maxReceiveCount`). */
export const SQS_MAX_RECEIVE_COUNT = 1000;

/** Backoff cap before receive `receiveCount + 1`, before jitter. */
const backoffSeconds = (schedule: RetrySchedule, receiveCount: number): number =>
  Math.min(
    schedule.maxDelaySeconds,
    schedule.firstDelaySeconds * 2 ** Math.min(Math.max(receiveCount - 1, 0), 30),
  );

/** The shortest wait the schedule can pick after receive `receiveCount` (jitter at its lowest). */
export const minimumDelaySeconds = (schedule: RetrySchedule, receiveCount: number): number =>
  Math.max(1, Math.floor(backoffSeconds(schedule, receiveCount) / 2));

/**
 * Seconds until the next receive: "equal jitter" in [backoff / 2, backoff], so many messages
 * failing together spread out, and never less than the platform's `Retry-After`. A wait is at
 * least the schedule's, so the receive count the stack derives holds whatever the platform asks.
 */
export const nextDelaySeconds = (
  schedule: RetrySchedule,
  receiveCount: number,
  retryAfterMs: number | undefined,
  random: () => number,
): number => {
  const backoff = backoffSeconds(schedule, receiveCount);
  const jittered = Math.max(
    minimumDelaySeconds(schedule, receiveCount),
    Math.round(backoff / 2 + (backoff / 2) * Math.min(Math.max(random(), 0), 1)),
  );
  const asked = retryAfterMs === undefined ? 0 : Math.ceil(retryAfterMs / 1000);
  return Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.max(jittered, asked));
};

/**
 * True when the next retry could only start after the window: the message is dead-lettered
 * now with the window's reason instead of being rescheduled once more.
 */
export const windowSpent = (
  schedule: RetrySchedule,
  receiveCount: number,
  sentAtMs: number,
  nowMs: number,
): boolean =>
  nowMs + minimumDelaySeconds(schedule, receiveCount) * 1000 >
  sentAtMs + schedule.windowSeconds * 1000;

/**
 * Receives a message can get within the window when every wait is the shortest the schedule
 * allows: the `maxReceiveCount` below which SQS never dead-letters a message that the handler
 * is still retrying. A tenth more, and three, for receives that end in a crash or timeout
 * (those wait the queue's visibility timeout instead).
 */
export const receivesWithinWindow = (schedule: RetrySchedule): number => {
  let receives = 1;
  let elapsed = 0;
  while (elapsed < schedule.windowSeconds && receives <= SQS_MAX_RECEIVE_COUNT) {
    elapsed += minimumDelaySeconds(schedule, receives);
    receives += 1;
  }
  return receives + Math.ceil(receives / 10) + 3;
};

/** "2 h 5 min", "45 s": how long a message was tried, for its dead-letter reason. */
export const describeDuration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
};
