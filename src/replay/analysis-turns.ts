/**
 * Where a recorded conversation starts a new turn, for the analysis of a run no built-in loop made:
 * a request whose newly sent messages put a user message after the model's last answer. The
 * conversation is rebuilt request by request from the tape's deltas (request-delta.ts).
 *
 * What counts as a user message: one a person (or the agent's caller) wrote — not one the built-in
 * loop marked internal, and not an input item the fold could only keep as a `[<type> <digest>]`
 * placeholder (a Responses API `reasoning` item, say), which is no message from anyone.
 */
import type { LlmRequestEvent } from '../core/events.js';
import type { ChatMessage } from '../core/messages.js';
import { applyDeltaInPlace } from '../agent/request-delta.js';

const PLACEHOLDER = /^\[[^\s\]]+ [0-9a-f]{16}\]$/;

export class TurnTracker {
  private readonly messages: ChatMessage[] = [];

  /** Take the next request; true when it starts a new turn. */
  request(event: LlmRequestEvent): boolean {
    applyDeltaInPlace(this.messages, event);
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i] as ChatMessage;
      if (message.role === 'assistant') return false;
      // Only what this request added can start a turn: a request sent again is the same turn.
      if (i >= event.prefix && message.role === 'user' && message.internal === undefined && !PLACEHOLDER.test(message.content)) return true;
    }
    return false;
  }
}
