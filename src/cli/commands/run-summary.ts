/**
 * What `agentctl run` says when the command has ended, and the code it exits with: the command's,
 * unless the replay did not reproduce the tape — a request refused or served by position, or
 * recorded calls no request asked for (7), or only requests past the end of the tape (8, as a replay
 * exhausted with `--fallback error`). A strict replay whose MCP traffic (`agentctl mcp` joined to the
 * run) matched nothing on the tape, or left recorded MCP tool calls unused, exits 7 too. A command
 * killed by a signal keeps its 128 + n: the replay was cut short, not wrong.
 */
import { count } from '../../core/plural.js';
import { mcpNotReproduced, type McpSummary } from '../../library/mcp-link.js';
import type { ProxySummary } from '../../proxy/modes.js';
import type { ChildExit } from '../child-command.js';
import { mcpParts } from './run-mcp-summary.js';

export const DIVERGED_EXIT_CODE = 7;
export const EXHAUSTED_EXIT_CODE = 8;

/** The code agentctl run exits with (see the module comment). */
export function runExitCode(summary: ProxySummary, exit: ChildExit, commandExit: number, mcp?: McpSummary): number {
  if (exit.signal !== null || summary.mode !== 'replay') return commandExit;
  const refused = summary.refused ?? 0;
  const exhausted = summary.exhausted ?? 0;
  if (refused > exhausted || (summary.divergences ?? 0) > 0 || (summary.unused ?? 0) > 0) return DIVERGED_EXIT_CODE;
  if (mcp !== undefined && mcpNotReproduced(mcp) !== undefined) return DIVERGED_EXIT_CODE;
  if (exhausted > 0) return EXHAUSTED_EXIT_CODE;
  return commandExit;
}

/** Requests the proxy answered with a 502 because their upstream gave no reply, and those upstreams. */
export interface UpstreamFailures {
  count: number;
  upstreams: readonly string[];
}

/** The summary line (without the `agentctl run: ` prefix). */
export function runSummaryLine(
  s: ProxySummary,
  tape: string,
  codes: { commandExit: number; exitCode: number },
  failures: UpstreamFailures,
  mcp?: McpSummary,
): string {
  const onto = s.file ?? `run ${s.runId ?? ''}`;
  const parts: string[] = [];
  let shown: string | undefined;
  switch (codes.exitCode === DIVERGED_EXIT_CODE && s.mode === 'replay' ? 'diverged' : s.mode) {
    case 'diverged': {
      const diverged = divergedParts(s, tape, mcp);
      shown = diverged.why;
      parts.push(diverged.line);
      break;
    }
    case 'record':
      parts.push(`recorded ${count(s.recorded ?? 0, 'model call')} onto ${s.file ?? `run ${s.runId ?? ''} (${tape})`}`);
      break;
    case 'replay': {
      const served = s.served ?? 0;
      parts.push(`served ${served} of ${count(served + (s.unused ?? 0), 'recorded call')} from ${tape}`);
      parts.push(`${count(s.divergences ?? 0, 'divergence')}${s.firstDivergence === null ? '' : ` (first: ${s.firstDivergence})`}`);
      if ((s.refused ?? 0) > 0) parts.push(`${count(s.refused ?? 0, 'request')} refused${(s.exhausted ?? 0) > 0 ? `, ${s.exhausted ?? 0} past the end of the tape` : ''}`);
      if ((s.unused ?? 0) > 0) parts.push(`${count(s.unused ?? 0, 'recorded call')} never asked for`);
      break;
    }
    case 'new-episodes':
      parts.push(`served ${count(s.served ?? 0, 'call')} from ${tape}, ${s.upstream ?? 0} sent upstream; recorded ${count(s.recorded ?? 0, 'model call')} onto ${onto}`);
      break;
    case 'passthrough':
      parts.push(`forwarded ${count(s.requests, 'request')}, recorded nothing`);
      break;
  }
  if (mcp !== undefined) parts.push(...mcpParts(mcp, shown));
  if (failures.count > 0) {
    const where = failures.upstreams.length === 0 ? '' : ` (${failures.upstreams.join(', ')} unreachable)`;
    parts.push(`${failures.count} with no reply from upstream${where}`);
  }
  return `${parts.join(', ')}; the command exited ${codes.commandExit}`;
}

/**
 * A replay that did not reproduce its tape (exit 7) says so first, and why, as the library's
 * ReplayDivergedError does (library/reproduced.ts): the first request the tape had no match for,
 * else the recorded calls never asked for; then the counts, none repeated and no "0 divergences".
 */
function divergedParts(s: ProxySummary, tape: string, mcp: McpSummary | undefined): { line: string; why: string } {
  const served = s.served ?? 0;
  const unused = s.unused ?? 0;
  const refused = s.refused ?? 0;
  const exhausted = s.exhausted ?? 0;
  const divergences = s.divergences ?? 0;
  const refusedText = `${count(refused, 'request')} refused${exhausted > 0 ? `, ${exhausted} past the end of the tape` : ''}`;
  const unusedText = `${count(unused, 'recorded call')} never asked for`;
  // The reason first, and not again among the counts: a request that matched nothing (a model
  // call's, else an MCP server's), else a refusal, else calls never asked for.
  const mcpWhy = mcp === undefined ? undefined : mcpNotReproduced(mcp);
  const mcpDiverged = mcp !== undefined && mcp.divergences.length > 0 ? mcpWhy : undefined;
  const why = s.firstDivergence ?? mcpDiverged ?? (refused > exhausted ? refusedText : unused > 0 ? unusedText : (mcpWhy ?? unusedText));
  const rest = [divergences > 0 ? count(divergences, 'divergence') : '', refused > 0 ? refusedText : '', unused > 0 ? unusedText : ''].filter((part) => part !== '' && part !== why);
  return { line: `diverged: ${why} (served ${served} of ${served + unused} from ${tape})${rest.length > 0 ? `; ${rest.join(', ')}` : ''}`, why };
}
