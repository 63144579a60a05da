import { type ActionName, isActionName } from '../../lambdas/actions';

/** What an action's rule needs from the deployment config. */
export interface RuleSettings {
  /** False when the config disables the action: no rule, its events match nothing. */
  readonly enabled: boolean;
  /** EventBridge `source` values the action's rule accepts. */
  readonly allowedSources: readonly string[];
}

export type RouteDecision =
  | { readonly routed: true; readonly action: ActionName }
  | { readonly routed: false; readonly reason: string };

/**
 * What the stack's EventBridge rules do: one rule per enabled action matching
 * `detail-type` = the action name and `source` in the action's allowed sources. An event that
 * matches no rule is dropped by EventBridge without a trace, so the runner reports it.
 */
export const routeEvent = (
  event: { readonly source: string; readonly detailType: string },
  actions: Readonly<Record<ActionName, RuleSettings>>,
): RouteDecision => {
  const { source, detailType } = event;
  if (!isActionName(detailType)) {
    return { routed: false, reason: `no rule matches detail-type "${detailType}"` };
  }
  const settings = actions[detailType];
  if (!settings.enabled) {
    return { routed: false, reason: `${detailType} is disabled in the config (no rule)` };
  }
  if (!settings.allowedSources.includes(source)) {
    return {
      routed: false,
      reason: `source "${source}" is not allowed for ${detailType} (allowed: ${settings.allowedSources.join(', ')})`,
    };
  }
  return { routed: true, action: detailType };
};
