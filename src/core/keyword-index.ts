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

    // The trie (sparse), its failure links breadth first (each node's keywords joined with those of
    // its failure node), then the table: each node's row a copy of its failure node's, its own edges
    // written over it — copies, not a loop over every cell, so that making an index is quick even
    // before the code that makes it is optimised (it is made once, when a command starts).
    interface Node { edges: Map<number, Node>; ends: number[]; fail: Node | null; id: number }
    const node = (): Node => ({ edges: new Map(), ends: [], fail: null, id: 0 });
    const root = node();
    keywords.forEach((keyword, id) => {
      let at = root;
      for (const char of keyword.toLowerCase()) {
        const c = this.classes[char.charCodeAt(0)] as number;
        let next = at.edges.get(c);
        if (next === undefined) at.edges.set(c, (next = node()));
        at = next;
      }
      at.ends.push(id);
    });
    const order: Node[] = [root];
    for (let head = 0; head < order.length; head++) {
      const at = order[head] as Node;
      for (const [c, child] of at.edges) {
        let fail = at.fail;
        while (fail !== null && !fail.edges.has(c)) fail = fail.fail;
        child.fail = fail === null ? root : (fail.edges.get(c) as Node);
        if (child.fail.ends.length > 0) child.ends = [...new Set([...child.ends, ...child.fail.ends])].sort((x, y) => x - y);
        order.push(child);
      }
    }
    // Numbered with the nodes no keyword ends in first, so that "a keyword ends here" is a comparison
    // of the state with `firstEnd`, not another array read a character.
    const numbered = [...order.filter((n) => n.ends.length === 0), ...order.filter((n) => n.ends.length > 0)];
    numbered.forEach((n, id) => {
      n.id = id;
    });
    this.next = new Int32Array(numbered.length * classCount);
    for (const at of order) {
      const row = at.id * classCount;
      if (at.fail !== null) this.next.copyWithin(row, at.fail.id * classCount, at.fail.id * classCount + classCount);
      for (const [c, child] of at.edges) this.next[row + c] = child.id * classCount;
    }
    this.endAt = new Int32Array(numbered.length + 1);
    const ends: number[] = [];
    numbered.forEach((n, id) => {
      this.endAt[id] = ends.length;
      ends.push(...n.ends);
    });
    this.endAt[numbered.length] = ends.length;
    this.ends = Int32Array.from(ends);
    const first = numbered.findIndex((n) => n.ends.length > 0);
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
