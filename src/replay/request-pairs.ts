/**
 * The replay comparator's view of the two conversations: the tape's and the replay's, each as
 * written and with ids labelled (id-labels.ts), kept up to date request by request. With them it
 * tells whether a replayed request is the recorded one and, if not, where they first differ.
 *
 * A request whose conversation differs from the tape's only in ids has another hash whatever else
 * it has: it counts as the recorded one when the labelled conversations are equal, its model,
 * stream, tools, endpoint and params are the recorded ones, and every earlier request with the
 * tape's very conversation had the tape's hash (so the settings the hash covers but the tape does
 * not show — tool definitions, temperature, token limit — agree; see HashedSettings).
 */
import type { LlmRequestEvent, RunEvent } from '../core/events.js';
import type { ChatMessage } from '../core/messages.js';
import { applyDeltaInPlace } from '../agent/request-delta.js';
import { canonicalJson } from '../guardrails/canonical-json.js';
import type { Difference } from '../core/first-difference.js';
import { HashedSettings } from './id-labels.js';
import { requestDifference, UNSEEN_DIFFERENCE, type RequestView } from './request-difference.js';

export class RequestPairs {
  private readonly recordedMessages: ChatMessage[] = [];
  private readonly replayedMessages: ChatMessage[] = [];
  private readonly recordedLabelled: ChatMessage[] = [];
  private readonly replayedLabelled: ChatMessage[] = [];
  private recordedStep = -1;
  /** The recorded request whose delta the tape's conversation last took (labelled). */
  private current: LlmRequestEvent | null = null;
  private readonly settings = new HashedSettings();

  /** A replayed request, as written and labelled: the replay's conversation takes its delta. */
  replayed(raw: LlmRequestEvent, labelled: LlmRequestEvent): void {
    applyDeltaInPlace(this.replayedMessages, raw);
    applyDeltaInPlace(this.replayedLabelled, labelled);
  }

  /** The tape's events of `step` (as written and labelled, index for index): its request's delta, once per step. */
  recorded(step: number, events: { raw: readonly RunEvent[]; labelled: readonly RunEvent[] }): void {
    if (this.recordedStep === step) return;
    const index = events.raw.findIndex((e) => e.type === 'llm_request');
    const request = events.raw[index];
    const labelled = events.labelled[index];
    if (request?.type !== 'llm_request' || labelled?.type !== 'llm_request') return;
    this.recordedStep = step;
    this.current = labelled;
    applyDeltaInPlace(this.recordedMessages, request);
    applyDeltaInPlace(this.recordedLabelled, labelled);
  }

  /** Whether `event` is the recorded request the conversations were last updated for. */
  isCurrent(event: RunEvent): boolean {
    return event === this.current;
  }

  /**
   * Whether the replayed request is the recorded one: the same hash (and model and stream); or a
   * conversation that differs from the tape's only in ids, with the same visible settings, and
   * unseen settings that earlier requests showed to agree. Requests with the tape's very
   * conversation are noted for that. Call with the requests the conversations were last updated for.
   */
  same(recorded: LlmRequestEvent, replayed: LlmRequestEvent): boolean {
    if (recorded.model !== replayed.model || recorded.stream !== replayed.stream) return false;
    if (recorded.hash === replayed.hash) {
      this.settings.note(recorded, replayed);
      return true;
    }
    if (sameConversation(this.recordedMessages, this.replayedMessages)) {
      this.settings.note(recorded, replayed);
      return false;
    }
    return sameConversation(this.recordedLabelled, this.replayedLabelled) && this.settings.agree(recorded, replayed);
  }

  /**
   * Where two requests differ: the first differing message and field (ids labelled; none when the
   * conversations are the same text), else model, stream, tools, else the hash.
   */
  difference(recorded: LlmRequestEvent, replayed: LlmRequestEvent): Difference {
    const sameText = sameConversation(this.recordedMessages, this.replayedMessages);
    const view = (event: LlmRequestEvent, messages: readonly ChatMessage[]): RequestView => ({
      model: event.model, messages, stream: event.stream, tools: event.tools,
      ...(event.endpoint === undefined ? {} : { endpoint: event.endpoint }),
      ...(event.params === undefined ? {} : { params: event.params }),
    });
    const found = requestDifference(
      view(recorded, sameText ? [] : this.recordedLabelled),
      view(replayed, sameText ? [] : this.replayedLabelled),
    );
    // Only the hash tells them apart: what it covers beyond the tape (tool definitions, settings).
    if (found.path === UNSEEN_DIFFERENCE) return { path: 'request', recorded: recorded.hash, replayed: replayed.hash };
    return { path: found.path, recorded: found.recorded, replayed: found.replayed };
  }
}

function sameConversation(a: readonly ChatMessage[], b: readonly ChatMessage[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && canonicalJson(a[i]) !== canonicalJson(b[i])) return false;
  return true;
}
