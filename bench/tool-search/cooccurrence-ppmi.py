# Measurement only (issue 27, round six): word vectors from co-occurrence in API descriptions.
# python3 cooccurrence-ppmi.py <ops.txt> <out base> <dims> <min count> <window, 0 = whole operation>
# PPMI (context smoothing 0.75) over co-occurrence, truncated SVD, U * S^0.5, int8 (semantic.mjs reads it).
import sys, collections, numpy as np, scipy.sparse as sp
from scipy.sparse.linalg import svds
src, out, dims, mincount, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
lines = [l.split() for l in open(src)]
cnt = collections.Counter(w for l in lines for w in l)
vocab = [w for w, c in cnt.most_common() if c >= mincount]
ix = {w: i for i, w in enumerate(vocab)}
pairs = collections.Counter()
for l in lines:
    ids = [ix[w] for w in l if w in ix]
    for a in range(len(ids)):
        lo = 0 if window == 0 else max(0, a - window)
        hi = len(ids) if window == 0 else min(len(ids), a + window + 1)
        for b in range(lo, hi):
            if b != a and ids[a] != ids[b]:
                pairs[(ids[a], ids[b])] += 1
r = np.fromiter((k[0] for k in pairs), np.int32, len(pairs))
c = np.fromiter((k[1] for k in pairs), np.int32, len(pairs))
v = np.fromiter(pairs.values(), np.float64, len(pairs))
V = len(vocab)
M = sp.coo_matrix((v, (r, c)), shape=(V, V)).tocsr()
total = M.sum()
rows = np.asarray(M.sum(1)).ravel()
cols = np.asarray(M.sum(0)).ravel() ** 0.75
cols /= cols.sum()
M = M.tocoo()
pmi = np.log((M.data / total) / ((rows[M.row] / total) * cols[M.col]))
keep = pmi > 0
P = sp.coo_matrix((pmi[keep], (M.row[keep], M.col[keep])), shape=(V, V)).tocsr()
U, S, _ = svds(P, k=dims)
E = U * np.sqrt(S)
E /= np.linalg.norm(E, axis=1, keepdims=True) + 1e-9
q = np.round(E / np.abs(E).max(1, keepdims=True) * 127).astype(np.int8)
open(out + ".words", "w").write("\n".join(vocab))
q.tofile(out + ".i8")
print(V, "words", len(pairs), "pairs", file=sys.stderr)
def nn(w, n=8):
    if w not in ix: return []
    s = E @ E[ix[w]]
    return [(vocab[j], round(float(s[j]), 2)) for j in np.argsort(-s)[1:n+1]]
for w in ["refund", "charg", "song", "reboot", "cancel", "mute", "bill", "unsubscrib", "forward", "vote"]:
    print(w, nn(w), file=sys.stderr)
