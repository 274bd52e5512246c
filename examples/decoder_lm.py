# What the decoder-only examples (gpt2.py, llama.py, mistral.py) share:
# the tensor-parallel all-reduce, a step's keys and values through the
# KV cache, and DecoderLM, the run of the blocks to the logits and the
# inputs dramplan-import passes in each phase.  Not a model of its own:
# the examples import it (dramplan-import puts an example's folder on the
# module path while it loads the file).
import torch
import torch.nn as nn


def all_reduce(x):
    """The sum over the tensor-parallel ranks: dramplan-import's collective
    (torch.ops.dramplan.all_reduce) when it runs the network."""
    return torch.ops.dramplan.all_reduce(x)


def through_cache(k, v, k_cache, v_cache, start):
    """The keys and values to attend over: with a cache, the step's (t
    positions) written in place at start .. start+t-1, then the cache's
    positions 0 .. start+t-1; without one, the step's own."""
    if k_cache is None:
        return k, v
    t = k.shape[2]
    k_cache[:, :, start:start + t] = k
    v_cache[:, :, start:start + t] = v
    return k_cache[:, :, :start + t], v_cache[:, :, :start + t]


class DecoderLM(nn.Module):
    """A decoder-only language model: its layers in self.blocks, its head
    in self.head; self.layers, self.kv_heads (one rank's) and
    self.head_dim size the KV cache."""

    def run_blocks(self, x, norm, pos, caches, start):
        """The blocks over the embedded tokens x, each called as
        blk(x, *pos, its layer's slice of each of caches, start), then the
        head over norm: every position's logits, or with a cache (prefill,
        decode) the last position's, as a serving loop does."""
        for i, blk in enumerate(self.blocks):
            x = blk(x, *pos, *[None if c is None else c[i] for c in caches],
                    start)
        if caches[0] is not None:
            x = x[:, -1:]
        return self.head(norm(x))

    def cache_spec(self):
        """The cache inputs: k_cache and v_cache [layers, batch, kv heads,
        max, head dim]."""
        cache = "float:%d,batch,%d,max,%d" % (self.layers, self.kv_heads,
                                              self.head_dim)
        return ["k_cache:" + cache, "v_cache:" + cache]

    def input_spec(self, phase):
        """dramplan-import's inputs for each phase (NAME:DTYPE:SHAPE)."""
        if phase in ("train", "infer"):
            return ["tokens:int64:batch,seq"]
        return ["tokens:int64:batch,seq", "start:int:cache"] + \
            self.cache_spec()
