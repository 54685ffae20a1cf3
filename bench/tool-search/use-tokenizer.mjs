// The SentencePiece tokenizer of the Universal Sentence Encoder lite, as TensorFlow.js models ship it
// (tfjs-models/universal-sentence-encoder/src/tokenizer, Apache-2.0, Copyright 2019 Google LLC): the
// best-scoring split of the text into vocabulary pieces (Viterbi over a trie of the pieces). Measurement only
// (issue 27, round seven): written out here so the bench needs no wrapper package around the model's files.
const SEPARATOR = "\u2581";
/** Pieces 0-5 are reserved (<unk>, control symbols): never matched in text. */
const RESERVED = 6;

const trieOf = (vocabulary) => {
  const root = { children: new Map(), end: false, piece: null };
  for (let i = RESERVED; i < vocabulary.length; i++) {
    let node = root;
    const symbols = [...vocabulary[i][0]];
    for (const s of symbols) {
      let next = node.children.get(s);
      if (!next) {
        next = { children: new Map(), end: false, piece: null };
        node.children.set(s, next);
      }
      node = next;
    }
    node.end = true;
    node.piece = { length: symbols.length, score: vocabulary[i][1], index: i };
  }
  return root;
};

/** `vocabulary`: [piece, score] pairs (the model's vocab.json). Returns text → piece indexes. */
export const sentencePiece = (vocabulary) => {
  const root = trieOf(vocabulary);
  return (text) => {
    const normalized = text.normalize("NFKC");
    if (normalized.length === 0) return [];
    const symbols = [...(SEPARATOR + normalized.replace(/ /g, SEPARATOR))];
    const n = symbols.length;
    // best[e]: the best total score of a split of symbols[0, e); piece[e]: the last piece of that split.
    const best = new Float64Array(n + 1);
    const reached = new Uint8Array(n + 1);
    const pieceAt = new Int32Array(n + 1);
    const lengthAt = new Int32Array(n + 1);
    reached[0] = 1;
    for (let i = 0; i < n; i++) {
      if (!reached[i]) continue;
      let node = root.children.get(symbols[i]);
      let matched = false;
      for (let j = i; j < n && node; j++) {
        if (node.end) {
          matched = true;
          const end = j + 1;
          const score = best[i] + node.piece.score;
          if (!reached[end] || score >= best[end]) {
            best[end] = score;
            reached[end] = 1;
            pieceAt[end] = node.piece.index;
            lengthAt[end] = node.piece.length;
          }
        }
        node = node.children.get(symbols[j + 1]);
      }
      // A symbol no piece starts with is one unknown piece (index 0) scoring 0, as the original has it.
      if (!matched && (!reached[i + 1] || best[i] >= best[i + 1])) {
        best[i + 1] = best[i];
        reached[i + 1] = 1;
        pieceAt[i + 1] = 0;
        lengthAt[i + 1] = 1;
      }
    }
    const out = [];
    for (let e = n; e > 0; e -= lengthAt[e]) out.push(pieceAt[e]);
    out.reverse();
    // Runs of unknown pieces are one unknown piece.
    return out.filter((id, i) => !(id === 0 && out[i - 1] === 0));
  };
};
