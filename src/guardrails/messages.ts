/**
 * The texts the model reads when a guardrail intervenes. They are instructions to a model, so
 * each says what happened and what to do instead; the phrases docs/guardrails.md §4 quotes are kept verbatim
 * because tests and users search for them.
 */

/**
 * A blocked identical attempt (LoopGuard). `attempts` counts the requests of the call — this one
 * included, whether each ran, was skipped as a duplicate or was blocked — since the turn began or
 * another call last changed the workspace: so the text speaks of requests, not runs, and of none
 * before such a change.
 */
export function identicalCallBlockMessage(tool: string, attempts: number): string {
  return (
    `Blocked: you have requested \`${tool}\` with exactly these arguments ${attempts} times this turn, ` +
    'with no other call changing the workspace in between. ' +
    'Repeating it unchanged will not give a different answer: change the arguments or use a different tool.'
  );
}

/** The consecutive-failure warning (LoopGuard). */
export function failureWarnMessage(tool: string, failures: number): string {
  return `Warning: \`${tool}\` has failed ${failures} consecutive times this turn. Read the errors before calling it again.`;
}

/** The consecutive-failure halt (LoopGuard). */
export function failureHaltMessage(tool: string, failures: number): string {
  return `\`${tool}\` has failed ${failures} consecutive times. Stop retrying it and choose a different approach.`;
}

/** Where an earlier successful call happened, as far as it is known. */
export interface EarlierCall {
  /** 1-based position of the outcome among those recorded this turn. */
  ordinal: number;
  step?: number | undefined;
  callId?: string | undefined;
}

/** "at step 2 (call call_1)", "(outcome 3 this turn)": names an earlier call for a person or a model. */
export function describeEarlierCall(earlier: EarlierCall): string {
  const parts: string[] = [];
  if (earlier.step !== undefined) parts.push(`at step ${earlier.step}`);
  if (earlier.callId !== undefined) parts.push(`(call ${earlier.callId})`);
  if (parts.length === 0) parts.push(`(outcome ${earlier.ordinal} this turn)`);
  return parts.join(' ');
}

/** The denial text of a duplicate call (ReplayControl). */
export function duplicateMessage(tool: string, earlier: EarlierCall): string {
  return (
    `Not run (duplicate): \`${tool}\` already succeeded with exactly these arguments ${describeEarlierCall(earlier)}, ` +
    'and nothing has changed since. Use that result instead of calling it again.'
  );
}

/** The text a call receives when an earlier call of the same step halted the run. */
export function afterHaltMessage(haltedTool: string): string {
  return `Not run: an earlier call in this step (\`${haltedTool}\`) stopped the run for repeated failures.`;
}

/** The text a call to a tool that does not exist receives. */
export function unknownToolMessage(tool: string): string {
  return `Not run: there is no tool named \`${tool}\`. Use one of the tools you were given.`;
}

/** The internal user message that follows a response cut off by the token limit (docs/guardrails.md §6). */
export function maxTokensFollowupMessage(): string {
  return (
    'Your previous reply was cut off because it reached the output token limit. ' +
    'Continue from exactly where you left off: do not repeat anything you already wrote and do not start over.'
  );
}
