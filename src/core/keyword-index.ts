/**
 * Which of many literal keywords a text holds, in one pass over it, whatever their number: an
 * Aho–Corasick automaton made into a table (state × character class → state). The redactor runs a
 * secret rule only on a text that holds one of the rule's keywords (redact.ts), so the hundreds of
 * rules cost one pass over a text that holds none, and a few scans over one that does.
 *
 * The same pass notes where each run of base64 characters (`A-Za-z0-9+/`) at least `minRun` long
 * starts: the rules for a key standing alone (no literal of its own) are tried there and only there —
 * a regular expression that begins with a character class is tried at every position of a text, and
 * costs many times what this pass does.
 *
 * Keywords are ASCII and matched without regard to the case of ASCII letters; every character a
 * keyword does not use falls into one class, so the table stays small.
 */
export class KeywordIndex {
  /** Character code → class; 0 for every character no keyword has. */
  private readonly classes = new Uint8Array(65536);
  private readonly width: number;
  /** `state * width + class` → next state, times `width` (the row where it starts). */
  private readonly next: Int32Array;
  /**
   * The keywords that end in a state: `ends[endAt[id]…endAt[id + 1])` for the state whose row starts
   * at `id * width` — one flat list, so the loop reads typed arrays only.
   */
  private readonly ends: Int32Array;
  private readonly endAt: Int32Array;
  /** The row of the first state some keyword ends in: every state from there on is one. */
  private readonly firstEnd: number;
  private readonly keywordCount: number;

  /** 1 for each base64 character. */
  private readonly base64 = new Uint8Array(65536);

  constructor(keywords: readonly string[], private readonly minRun = Infinity) {
    for (const char of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') this.base64[char.charCodeAt(0)] = 1;
    let classCount = 1;
    for (const keyword of keywords) {
      if (keyword.length === 0 || !/^[\x20-\x7e]+$/.test(keyword)) throw new Error(`a keyword must be printable ASCII: ${JSON.stringify(keyword)}`);
      for (const char of keyword.toLowerCase()) {
        const code = char.charCodeAt(0);
        if (this.classes[code] !== 0) continue;
        this.classes[code] = classCount;
        this.classes[char.toUpperCase().charCodeAt(0)] = classCount;
        classCount++;
      }
    }
    this.width = classCount;

    // The trie, then the failure links breadth first, each state's transitions completed from its
    // failure state's, and its keywords joined with those of its failure state.
    const trie: Int32Array[] = [new Int32Array(classCount).fill(-1)];
    const found: number[][] = [[]];
    keywords.forEach((keyword, id) => {
      let state = 0;
      for (const char of keyword.toLowerCase()) {
        const c = this.classes[char.charCodeAt(0)] as number;
        const row = trie[state] as Int32Array;
        if (row[c] === -1) {
          row[c] = trie.length;
          trie.push(new Int32Array(classCount).fill(-1));
          found.push([]);
        }
        state = row[c] as number;
      }
      (found[state] as number[]).push(id);
    });
    const fail = new Int32Array(trie.length);
    const queue: number[] = [];
    const root = trie[0] as Int32Array;
    for (let c = 0; c < classCount; c++) {
      if (root[c] === -1) root[c] = 0;
      else queue.push(root[c] as number);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head] as number;
      const row = trie[state] as Int32Array;
      const fallback = trie[fail[state] as number] as Int32Array;
      for (let c = 0; c < classCount; c++) {
        const target = row[c] as number;
        if (target === -1) {
          row[c] = fallback[c] as number;
        } else {
          fail[target] = fallback[c] as number;
          found[target] = [...(found[target] as number[]), ...(found[fail[target] as number] as number[])];
          queue.push(target);
        }
      }
    }
    // States renumbered: those no keyword ends in first, then the others, so that "a keyword ends
    // here" is a comparison of the state with `firstEnd`, not another array read a character.
    const ending = (state: number): boolean => (found[state] as number[]).length > 0;
    const order = [...trie.keys()].sort((x, y) => Number(ending(x)) - Number(ending(y)) || x - y);
    const renamed = new Int32Array(trie.length);
    order.forEach((state, id) => {
      renamed[state] = id;
    });
    this.next = new Int32Array(trie.length * classCount);
    this.endAt = new Int32Array(trie.length + 1);
    const ends: number[] = [];
    order.forEach((state, id) => {
      const row = trie[state] as Int32Array;
      for (let c = 0; c < classCount; c++) this.next[id * classCount + c] = (renamed[row[c] as number] as number) * classCount;
      this.endAt[id] = ends.length;
      ends.push(...[...new Set(found[state] as number[])].sort((x, y) => x - y));
    });
    this.endAt[trie.length] = ends.length;
    this.ends = Int32Array.from(ends);
    const first = order.findIndex(ending);
    this.firstEnd = first === -1 ? Infinity : first * classCount;
    this.keywordCount = keywords.length;
  }

  /** The number of keywords: the size of the `seen` array `scan` takes. */
  get size(): number {
    return this.keywordCount;
  }

  /**
   * The ids (positions in the constructor's list) of the keywords the text holds, each once, in the
   * order they are first found: written to `found` (as long as the list of keywords), their number
   * returned, and each marked 1 in `seen` (which the caller clears). And where each run of base64
   * characters at least `minRun` long starts: pushed onto `runs`.
   */
  scan(text: string, seen: Uint8Array, found: Int32Array, runs: number[]): number {
    const { classes, next, firstEnd, ends, endAt, base64, minRun, width } = this;
    // A text too short to hold a long enough run (most) goes through the loop without counting runs.
    const counting = text.length >= minRun;
    let state = 0;
    let run = 0;
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      state = next[state + (classes[code] as number)] as number;
      if (state >= firstEnd) {
        const id0 = state / width;
        for (let e = endAt[id0] as number, stop = endAt[id0 + 1] as number; e < stop; e++) {
          const id = ends[e] as number;
          if (seen[id] === 0) {
            seen[id] = 1;
            found[count++] = id;
          }
        }
      }
      if (!counting) continue;
      if (base64[code] === 1) {
        run++;
      } else {
        if (run >= minRun) runs.push(i - run);
        run = 0;
      }
    }
    if (run >= minRun) runs.push(text.length - run);
    return count;
  }
}
