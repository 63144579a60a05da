/**
 * Observes events on a deployed bus the way an operator would: a rule with `pattern` that
 * targets a capture queue the test owns (`local/aws-emulator/event-capture.ts`, which
 * `npm start -- --deployed` uses too). `find` receives until an event matches.
 */
import { captureBusEvents, type EventCapture } from '../../../local/aws-emulator/event-capture';
import type { DeployedContext } from './deployed-context';

export type { EventCapture };

export const captureEvents = (
  ctx: DeployedContext,
  busName: string,
  pattern: Record<string, unknown>,
): Promise<EventCapture> => captureBusEvents(ctx.clients, busName, pattern);
