/**
 * The size bound of one batch answer (issue 12 item 3). Each item's answer is turned into JSON
 * text once, right after the item ran, and counted; the batch answer is those texts joined. An
 * item whose answer would pass the bound gets an error instead, and the items after it are not
 * run at all (their work would be thrown away), so one batch of 1,000 large queries costs at
 * most the bound in memory and work, instead of growing until V8 cannot build the string (a
 * 500 "Invalid string length") or the process runs out of memory.
 */
import { ApiError } from '../../errors/api-error.ts';
import { RawJson } from '../../objects/raw-json.ts';

/** Largest batch answer, in characters of JSON (64 MiB). */
export const MAX_BATCH_ANSWER_CHARS = 64 * 1024 * 1024;

/** Counts the answer of a batch as its items finish. */
export class AnswerBudget {
  private used = 2;
  private spent = false;

  constructor(readonly max: number = MAX_BATCH_ANSWER_CHARS) {}

  /** The error of items that do not fit (and of every item after the first one that did not). */
  private tooLarge(): ApiError {
    return new ApiError('answerTooLarge', `The batch answer would be larger than ${this.max} characters; this item and the ones after it were not answered. Split the batch or ask for fewer objects (limit, keys).`);
  }

  /** Throws for items after the budget ran out: they are not run. */
  check(): void {
    if (this.spent) throw this.tooLarge();
  }

  /** The answer of one item as JSON text, counted; throws (and closes the budget) past the bound. */
  take(body: unknown): RawJson {
    this.check();
    const text = body instanceof RawJson ? body.text : JSON.stringify(body ?? null);
    // `{"success":` + text + `},`
    this.used += text.length + 13;
    if (this.used > this.max) {
      this.spent = true;
      throw this.tooLarge();
    }
    return new RawJson(text);
  }

  /** Counts an answer that is not an item's success (an error object). */
  note(result: unknown): void {
    this.used += JSON.stringify(result).length + 1;
  }
}

/** The batch answer as one JSON text: successes spliced in as they were serialised. */
export function batchAnswerJson(results: readonly ({ success: unknown } | { error: unknown })[]): string {
  const parts = results.map((r) => ('success' in r && r.success instanceof RawJson ? `{"success":${r.success.text}}` : JSON.stringify(r)));
  return `[${parts.join(',')}]`;
}
