#!/bin/bash
# dramplan-import's host tests (TAP): small networks through the importer,
# planned by this build's dramplan and re-checked by `dramplan verify`.
# Built into $(O)/tests/import/test_import with the paths filled in; the
# tests that need PyTorch are skipped (TAP SKIP) without it.
DRAMPLAN=@DRAMPLAN@
IMPORT=@IMPORT@
SRC=@SRC@
PY=/usr/bin/python3
N=97

T=$(mktemp -d "${TMPDIR:-/tmp}/test_import.XXXXXX")
trap 'rm -rf "$T"' EXIT
echo "1..$N"
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else nok "$name"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# one line on stderr, the status expected, nothing on stdout
one_line_err() {	# STATUS PATTERN CMD...
	local want=$1 pat=$2 rc
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -q -- "$pat" "$T/err" || { echo "# rc=$rc"; sed 's/^/# /' "$T/err" | head -5; return 1; }
}

# these need no PyTorch
check "the importer's functions are at most 60 lines" "$PY" -c "
import ast, glob, sys
long = [(f, n.name, n.end_lineno - n.lineno + 1)
        for f in sorted(glob.glob(sys.argv[1] + '/*.py'))
        for n in ast.walk(ast.parse(open(f).read()))
        if isinstance(n, ast.FunctionDef) and n.end_lineno - n.lineno >= 60]
print(''.join('# %s: %s: %d lines\\n' % x for x in long), end='')
sys.exit(1 if long else 0)" "$SRC/userspace/import/dramplan_import"
check "usage error: exit 2, one line" one_line_err 2 '^dramplan-import: ' "$IMPORT" --batch 0 x
check "without PyTorch: exit 1, one line naming the packages" \
	one_line_err 1 'python3-torch' "$PY" -S "$IMPORT" resnet18
echo x >"$T/x.onnx"
check "without onnx: exit 1, one line naming the package" \
	one_line_err 1 'python3-onnx' "$PY" -S "$IMPORT" "$T/x.onnx"
check "--input with an unknown DTYPE: usage error" one_line_err 2 'unknown DTYPE "complex"' \
	"$IMPORT" --input x:complex:4 x
check "--input with an unknown dimension: usage error" one_line_err 2 '"foo" is not an integer' \
	"$IMPORT" --input x:int64:batch,foo x
check "--version" sh -c "\"$IMPORT\" --version | grep -qx \"dramplan-import $(cat "$SRC/VERSION")\""

# ONNX graphs: written with onnx.helper, no PyTorch needed
jq_py() {	# FILE EXPR: a Python expression over the JSON `m` is true
	"$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}
# import FILE [ARGS], then a Python expression over its JSON `m`
jq_py_imp() {	# FILE EXPR ARGS...
	local f=$1 e=$2
	shift 2
	"$IMPORT" "$f" "$@" -o "$T/jq.json" && jq_py "$T/jq.json" "$e"
}
# one line, exit 1, and no file at -o
onnx_bad() {	# FILE PATTERN [ARGS...]
	local f=$1 pat=$2
	shift 2
	one_line_err 1 "$pat" "$IMPORT" "$T/onnx/$f" -o "$T/bad.json" "$@" && [ ! -e "$T/bad.json" ]
}
if "$PY" -c 'import onnx' 2>/dev/null && "$PY" "$SRC/tests/import/bad_onnx.py" "$T/onnx"; then
	check "ONNX: a graph imports (initializer a weight, input, output)" sh -c \
		"\"$IMPORT\" \"$T/onnx/good.onnx\" -o \"$T/good.json\" && $PY -c \"import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if [(t['name'], t['elems'], t.get('usage')) for t in m['cores'][0]['tensors']] == [('w', 4096, 'weight'), ('x', 128, 'input'), ('h', 128, None), ('y', 128, 'output')] else 1)\" \"$T/good.json\""
	check "ONNX: truncated: one line, exit 1, nothing written" onnx_bad truncated.onnx 'not an ONNX model'
	check "ONNX: a cycle: one line naming a node" onnx_bad cycle.onnx "a cycle through node 'loop_a' (Add)"
	check "ONNX: an unknown operator: one line naming the node" onnx_bad unknown.onnx "node 'frob': unknown operator 'Frobnicate'"
	check "ONNX: a dynamic dimension without a value: one line naming the input" \
		onnx_bad dynamic.onnx "input 'x': dimension 0 ('N') has no value: pass --input x:DTYPE:SHAPE"
	check "ONNX: no static output shape: one line naming the node" \
		onnx_bad noshape.onnx "node 'fill' (ConstantOfShape): shape inference gives no shape for 'c'"
	check "ONNX: a shape from values folded out of constants (Expand)" sh -c \
		"\"$IMPORT\" \"$T/onnx/folded.onnx\" | grep -q '\"name\": \"e\", \"elems\": 12,'"
	check "ONNX: a dynamic dimension given by --input" sh -c \
		"\"$IMPORT\" \"$T/onnx/dynamic.onnx\" --input x:float:3,64 | grep -q '\"name\": \"x\", \"elems\": 192,'"
	"$PY" "$SRC/tests/import/decoder_onnx.py" "$T/onnx"
	check "ONNX: a decoder's ops (Range, Einsum, Trilu, Where, CumSum, Reshape and Expand to computed shapes) import" \
		jq_py_imp "$T/onnx/decoder_ops.onnx" "sorted((t['name'], t['elems']) for t in m['cores'][0]['tensors'] if t.get('usage') != 'weight') == [('ang', 64), ('cs', 128), ('e', 384), ('w', 64), ('x', 128)]" --seq 8
	check "ONNX: NonZero (a data-dependent shape): one line naming the node" \
		onnx_bad nonzero.onnx "node 'nz' (NonZero): its output shape depends on tensor values"
else
	for i in 1 2 3 4 5 6 7 8 9 10; do skip "ONNX test" "no onnx for $PY (python3-onnx, scripts/deps.sh)"; done
fi

if ! "$PY" -c 'import torch, torchvision, functorch' 2>/dev/null; then
	while [ $n -lt $N ]; do skip "importer test" "no PyTorch for $PY (scripts/deps.sh)"; done
	exit 0
fi

# plan MODEL.json with dramplan [ARGS], then verify the plan
plan_ok() {	# MODEL ARGS...
	local m=$1
	shift
	"$DRAMPLAN" -q --no-svg -o "$m.plan" "$@" "$m" 2>"$T/err" &&
		"$DRAMPLAN" verify "$m.plan" >/dev/null 2>>"$T/err" ||
		{ sed 's/^/# /' "$T/err" | head -5; return 1; }
}
imp() {		# OUT ARGS...: import into OUT
	local o=$1
	shift
	"$IMPORT" "$@" -o "$o" 2>"$T/err" || { sed 's/^/# /' "$T/err"; return 1; }
}

# inference: a real torchvision network (small input) and the tiny CNN
check "resnet18 inference imports" imp "$T/r18.json" resnet18 --input-shape 3,32,32
check "resnet18 inference: plan passes verify (seed)" plan_ok "$T/r18.json"
check "resnet18 inference: plan passes verify (search)" plan_ok "$T/r18.json" --strategy search
check "tiny CNN inference (float16, batch 4) imports" \
	imp "$T/tiny.json" "$SRC/tests/import/tiny.py" --batch 4 --dtype float16
check "tiny CNN inference: plan passes verify" plan_ok "$T/tiny.json"

# views and in-place ops are one tensor (tests/import/alias.py)
imp "$T/alias.json" "$SRC/tests/import/alias.py"
check "views and in-place ops share one tensor" jq_py "$T/alias.json" \
	"[t['name'] for t in m['cores'][0]['tensors']] == ['fc.weight', 'fc.bias', 'x', 'fc', 'mul'] and [i['defs'] for i in m['cores'][0]['blocks'][0]['insts']] == [['fc'], ['fc'], ['mul']] and m['cores'][0]['tensors'][4]['usage'] == 'output'"

# training: one core, the tiny CNN; saved activations cross the loss
check "tiny CNN training step imports" imp "$T/tt.json" "$SRC/tests/import/tiny.py" --train --batch 2 --sgd
check "tiny CNN training: plan passes verify" plan_ok "$T/tt.json" --strategy search
check "training: forward values used after the loss, gradients updated" jq_py "$T/tt.json" \
	"(lambda ins: (lambda k: any(set(i['uses']) & set(d for j in ins[:k] for d in j['defs']) for i in ins[k+1:]) and sum(i['name'].startswith('sgd.') for i in ins) == 8)([i['name'] for i in ins].index('loss')))(m['cores'][0]['blocks'][0]['insts'])"

# data parallel on 2 cores: gradients shared, linked, all-reduced
check "tiny CNN on 2 cores imports" imp "$T/t2.json" "$SRC/tests/import/tiny.py" --train --cores 2 --batch 2 \
	--name tinynet_train_2core
check "2 cores: plan passes verify" plan_ok "$T/t2.json"
check "2 cores: gradients shared, linked to core 0, collective" jq_py "$T/t2.json.plan" \
	"len(m['cores']) == 2 and sum(1 for t in m['cores'][1]['tensors'] if t.get('remote')) == 8 and all(t['region'] == ('cc' if c['core'] == 0 else 'linked') for c in m['cores'] for t in c['tensors'] if t['name'].startswith('allreduce.')) and all(t['address'] == [u for u in m['cores'][0]['tensors'] if u['name'] == t['name']][0]['address'] for t in m['cores'][1]['tensors'] if t.get('remote'))"
check "the VM's example is what the importer writes (examples/tinynet_train_2core.json)" \
	cmp -s "$T/t2.json" "$SRC/examples/tinynet_train_2core.json"

# language models: token ids, attention op by op, KV caches
EX=$SRC/examples
# tests/import/encoder.py: ids by position go to an nn.Embedding -> int64
tensor_is() {	# FILE NAME EXPR: EXPR over the tensor `t` named NAME is true
	jq_py "$1" "(lambda t: $3)([t for t in m['cores'][0]['tensors'] if t['name'] == '$2'][0])"
}
imp "$T/enc.json" "$SRC/tests/import/encoder.py"
check "token ids by position into nn.Embedding: int64 input" \
	tensor_is "$T/enc.json" x "(t['elems'], t['elem_size'], t['usage']) == (16, 8, 'input')"
# per layer of nn.TransformerEncoderLayer (2 layers): the packed QKV, out,
# and two MLP projections (4 addmm, +1 for the head), scores and weighted
# values (2 bmm), 1 softmax, 2 layer norms; 21 tensors a layer (the QKV,
# q scaled, q/k/v/attention made contiguous, scores, softmax, values,
# out_proj, residual, norm + mean + rstd, MLP in, ReLU, MLP out, residual,
# norm + mean + rstd), plus the embedding and the head, 27 weights, 1 input
enc_ops() {
	jq_py "$1" "(lambda c: c['bmm'] == 4 and c['_softmax'] == 2 and c['native_layer_norm'] == 4 and c['addmm'] == 9 and c['relu'] == 2)(__import__('collections').Counter(__import__('re').sub(r'_[0-9]+\$', '', i['name']) for i in m['cores'][0]['blocks'][0]['insts']))" &&
		jq_py "$1" "len(m['cores'][0]['tensors']) == 27 + 1 + 2 * 21 + 2"
}
check "inference: attention and MLP op by op, per layer counts" enc_ops "$T/enc.json"
check "inference: plan passes verify" plan_ok "$T/enc.json" --strategy search
imp "$T/enct.json" "$SRC/tests/import/encoder.py" --train
check "training's forward has the inference's operations" "$PY" -c "
import collections, json, re, sys
def ops(f, fw):
    ins = json.load(open(f))['cores'][0]['blocks'][0]['insts']
    if fw:
        ins = ins[:[i['name'] for i in ins].index('loss')]
    return collections.Counter(re.sub(r'_[0-9]+\$', '', i['name']) for i in ins)
sys.exit(0 if ops(sys.argv[1], 0) == ops(sys.argv[2], 1) else 1)" "$T/enc.json" "$T/enct.json"

# inputs by name (the module's input_spec) and their errors
check "GPT-2-shaped (tiny) inference, inputs by name, imports" \
	imp "$T/g.json" "$EX/gpt2.py:tiny" --seq 8 --batch 2
check "GPT-2-shaped (tiny): int64 tokens" tensor_is "$T/g.json" tokens "(t['elems'], t['elem_size']) == (16, 8)"
check "GPT-2-shaped (tiny): the tied head is the embedding's tensor" \
	jq_py "$T/g.json" "'head.weight' not in [t['name'] for t in m['cores'][0]['tensors']]"
check "GPT-2-shaped (tiny): plan passes verify" plan_ok "$T/g.json"
check "a dimension without a value: one line naming the input and the option" \
	one_line_err 1 "input 'tokens' (tokens:int64:batch,seq): dimension 'seq' has no value: pass --seq N" \
	"$IMPORT" "$EX/gpt2.py:tiny"
# --input for one input: the others keep their input_spec defaults
check "--input for one input of two (T5-style): imports" \
	imp "$T/t5.json" "$EX/t5.py:tiny" --seq 8 --input src:int64:batch,12
check "--input for one input of two: the given shape and the other's default" \
	jq_py "$T/t5.json" "[(t['name'], t['elems']) for t in m['cores'][0]['tensors'] if t.get('usage') == 'input'] == [('src', 12), ('tgt', 8)]"
check "T5-style encoder-decoder: plan passes verify" plan_ok "$T/t5.json"
check "an input forward() does not take: one line naming it" \
	one_line_err 1 "input 'foo': GPT.forward() has no such parameter" \
	"$IMPORT" "$EX/gpt2.py:tiny" --input foo:float:4
check "a trace that reads an input's value: one line naming the inputs and what to pass" \
	one_line_err 1 "the trace reads the values of an integer input (tokens, n): give the one it needs as a Python integer, --input NAME:int:VALUE" \
	"$IMPORT" "$SRC/tests/import/lengths.py" --seq 16
check "that value as a Python integer: imports, a constant of the trace" sh -c \
	"\"$IMPORT\" \"$SRC/tests/import/lengths.py\" --seq 16 --input tokens:int64:batch,seq --input n:int:5 | grep -q '\"name\": \"embedding\", \"elems\": 40,'"

# prefill and decode: the cache is written in place and keeps its
# addresses whatever the step (same --max-len)
imp "$T/gp.json" "$EX/gpt2.py:tiny" --phase prefill --seq 4 --max-len 16
imp "$T/gd3.json" "$EX/gpt2.py:tiny" --phase decode --cache-len 3 --max-len 16
imp "$T/gd9.json" "$EX/gpt2.py:tiny" --phase decode --cache-len 9 --max-len 16
cache_at() {	# FILE: k_cache's and v_cache's addresses and sizes
	"$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); print([(t['name'], t['address'], t['elems']) for t in m['cores'][0]['tensors'] if t['name'] in ('k_cache', 'v_cache')])" "$1"
}
same_cache() {
	local a
	a=$(cache_at "$T/gp.json")
	echo "# $a"
	[ "$a" = "$(cache_at "$T/gd3.json")" ] && [ "$a" = "$(cache_at "$T/gd9.json")" ] &&
		[ "$a" = "[('k_cache', 548864, 2048), ('v_cache', 557056, 2048)]" ]
}
check "prefill and decode at two lengths: the cache at the same addresses" same_cache
check "decode: the cache is an input written in place by every layer" jq_py "$T/gd9.json" \
	"all(sum(1 for i in m['cores'][0]['blocks'][0]['insts'] if i['name'].startswith('copy_') and c in i['defs'] and c in i['uses']) == 2 for c in ('k_cache', 'v_cache')) and m['model'] == 'gpt2_decode_b1_s1_c9'"
check "prefill: plan passes verify" plan_ok "$T/gp.json"
check "decode: plan passes verify (search)" plan_ok "$T/gd9.json" --strategy search
check "decode: activations share memory across layers" jq_py "$T/gd9.json.plan" \
	"(lambda c: sum(t['size'] for t in c['tensors'] if t['region'] == 'general') >= 4 * c['peak'])(m['cores'][0])"
# the smallest example's 2-core decode plan: tensor parallel, half the
# heads and MLP a core, two all-reduces a layer, each core's own tensor
check "decode on 2 cores (tensor parallel): imports" imp "$T/gd2c.json" "$EX/gpt2.py:tiny" --phase decode \
	--cache-len 3 --max-len 16 --cores 2 --name gpt2_decode_2core
check "decode on 2 cores: plan passes verify" plan_ok "$T/gd2c.json"
check "decode on 2 cores: half the cache a core, 4 all-reduced tensors, each core's own, in its CC region" \
	jq_py "$T/gd2c.json.plan" "all(len([t for t in c['tensors'] if t['name'].startswith('all_reduce') and t['region'] == 'cc' and not t['shared']]) == 4 and [t['bytes'] for t in c['tensors'] if t['name'] == 'k_cache'] == [4096] for c in m['cores'])"
check "decode on 2 cores: one all_reduce (sum, f32, cores 0 and 1) per all-reduced tensor, staged from the partial sum" \
	jq_py "$T/gd2c.json" "all((lambda ins: sum(1 for i in ins if i.get('collective') == {'kind': 'all_reduce', 'reduction': 'sum', 'type': 'f32', 'cores': [0, 1]} and i['defs'] == i['uses']) == 4 and sum(1 for i in ins if i['name'].startswith('stage.all_reduce')) == 4)(c['blocks'][0]['insts']) for c in m['cores'])"
check "the VM's decode example is what the importer writes (examples/gpt2_decode_2core.json)" \
	cmp -s "$T/gd2c.json" "$SRC/examples/gpt2_decode_2core.json"
check "decode of an encoder (no cache): one line" one_line_err 1 'no input is written in place' \
	"$IMPORT" "$EX/bert.py:tiny" --phase decode --cache-len 3

# Llama-shaped (RMSNorm, rotary, SwiGLU, grouped-query attention) and
# BERT-shaped (attention mask), tiny
imp "$T/lp.json" "$EX/llama.py:tiny" --phase prefill --seq 8 --max-len 16
check "Llama-shaped prefill: plan passes verify" plan_ok "$T/lp.json"
imp "$T/ld.json" "$EX/llama.py:tiny" --phase decode --cache-len 8 --max-len 16
check "Llama-shaped decode: the cache holds the KV heads only" \
	tensor_is "$T/ld.json" k_cache "t['elems'] == 2 * 1 * 2 * 16 * 16"
check "Llama-shaped decode: plan passes verify" plan_ok "$T/ld.json"
check "Llama-shaped training step imports" imp "$T/lt.json" "$EX/llama.py:tiny" --train --seq 8 --batch 2
check "Llama-shaped training: plan passes verify" plan_ok "$T/lt.json"
imp "$T/b.json" "$EX/bert.py:tiny" --seq 8 --batch 2
check "BERT-shaped inference: a boolean mask" tensor_is "$T/b.json" mask "(t['elems'], t['elem_size']) == (16, 1)"
check "BERT-shaped inference: plan passes verify" plan_ok "$T/b.json"
check "BERT-shaped training on 2 cores imports" imp "$T/bt.json" "$EX/bert.py:tiny" --train --seq 8 --batch 2 --cores 2
check "BERT-shaped training on 2 cores: plan passes verify" plan_ok "$T/bt.json"

# ONNX exported by torch.onnx against the PyTorch import of one network
if "$PY" -c 'import onnx' 2>/dev/null; then
	"$PY" "$SRC/tests/import/export_onnx.py" "$SRC/tests/import/convnet.py" "$T/conv.onnx" 2>"$T/err"
	imp "$T/convo.json" "$T/conv.onnx"
	imp "$T/convp.json" "$SRC/tests/import/convnet.py"
	# the same activations (sizes, in order); the weights but batch
	# norm's num_batches_tracked, which PyTorch has and ONNX does not
	same_net() {
		"$PY" - "$T/convp.json" "$T/convo.json" <<-'EOF'
		import json, sys
		p, o = (json.load(open(f))['cores'][0]['tensors'] for f in sys.argv[1:])
		act = lambda ts: [(t['elems'], t['elem_size'], t.get('usage')) for t in ts if t.get('usage') in (None, 'output')]
		w = lambda ts: sorted((t['name'], t['elems']) for t in ts if t.get('usage') in ('weight', 'input') and 'num_batches' not in t['name'])
		sys.exit(0 if act(p) == act(o) and len(act(p)) == 11 and w(p) == w(o) else 1)
		EOF
	}
	check "ONNX vs PyTorch (convnet): the same tensors and sizes" same_net
	both_plan() { plan_ok "$T/convo.json" --strategy search && plan_ok "$T/convp.json" --strategy search; }
	check "ONNX vs PyTorch (convnet): plans verify" both_plan
	check "ONNX vs PyTorch (convnet): peaks within 1 %" "$PY" -c "
import json, sys
p, o = (json.load(open(f))['cores'][0]['peak'] for f in sys.argv[1:])
print('# peaks', p, o)
sys.exit(0 if abs(p - o) <= 0.01 * max(p, o) else 1)" "$T/convp.json.plan" "$T/convo.json.plan"
	"$PY" "$SRC/tests/import/export_onnx.py" "$EX/gpt2.py:tiny" "$T/gpt2.onnx" tokens:int64:1,8 2>"$T/err"
	check "ONNX: torch's export of the tiny GPT-2 imports" imp "$T/gpt2o.json" "$T/gpt2.onnx"
	check "ONNX: the tiny GPT-2's plan passes verify" plan_ok "$T/gpt2o.json" --strategy search
	"$PY" "$SRC/tests/import/export_onnx.py" "$EX/llama.py:tiny" "$T/llama.onnx" tokens:int64:1,8 2>"$T/err"
	imp "$T/llamao.json" "$T/llama.onnx"
	check "ONNX: torch's export of the tiny Llama imports, plan verifies" plan_ok "$T/llamao.json"
	"$PY" "$SRC/tests/import/export_onnx.py" "$EX/bert.py:tiny" "$T/bert.onnx" tokens:int64:2,8 mask:bool:2,8 2>"$T/err"
	imp "$T/berto.json" "$T/bert.onnx"
	check "ONNX: torch's export of the tiny BERT (a mask) imports, plan verifies" plan_ok "$T/berto.json"
	# the Mistral-style decoder with its packed KV cache (torch.outer as
	# Einsum, repeat_interleave as Expand and Reshape of computed shapes,
	# the sliding window as Range, comparisons and Where)
	"$PY" "$SRC/tests/import/export_onnx.py" "$EX/mistral.py:tiny" "$T/mistral.onnx" \
		tokens:int64:1,8 kv_cache:float:2,2,1,2,16,16 2>"$T/err"
	check "ONNX: torch's export of the Mistral-style decoder (KV cache, opset 17) imports" \
		imp "$T/mistralo.json" "$T/mistral.onnx"
	check "ONNX: the Mistral-style decoder's plan passes verify" plan_ok "$T/mistralo.json" --strategy search
else
	for i in 1 2 3 4 5 6 7 8 9; do skip "ONNX test" "no onnx for $PY (python3-onnx, scripts/deps.sh)"; done
fi

check "unit tests: the package's modules and registry rules (tests/import/units.py)" \
	sh -c "\"$PY\" \"$SRC/tests/import/units.py\" \"$SRC/userspace/import\" 2>\"$T/units\" || { sed 's/^/# /' \"$T/units\" | tail -20; exit 1; }"

# shapes on the meta device, never a silent run on the CPU
check "Mistral-style prefill on meta (repeat_interleave, rotary in forward, sliding window): imports" \
	imp "$T/mp.json" "$EX/mistral.py:tiny" --phase prefill --seq 8 --max-len 16 --device meta
check "Mistral-style prefill: plan passes verify" plan_ok "$T/mp.json"
check "Mistral-style decode, packed KV cache: imports, plan passes verify" sh -c \
	"\"$IMPORT\" \"$EX/mistral.py:tiny\" --phase decode --cache-len 5 --max-len 16 -o \"$T/md.json\" && \"$DRAMPLAN\" -q --no-svg -o \"$T/md.plan\" \"$T/md.json\" && \"$DRAMPLAN\" verify \"$T/md.plan\" >/dev/null"
check "a model built on the meta device imports" imp "$T/meta.json" "$SRC/tests/import/meta_built.py" --seq 8
check "an op without a meta kernel or rule: one line naming it and --allow-cpu, nothing written" \
	one_line_err 1 "aten::histc has no meta kernel.*remedies: --allow-cpu" "$IMPORT" "$SRC/tests/import/no_meta.py" -o "$T/nm.json"
check "--allow-cpu: imports on the CPU, one note on stderr saying so" sh -c \
	"\"$IMPORT\" \"$SRC/tests/import/no_meta.py\" --allow-cpu -o \"$T/nm.json\" 2>\"$T/note\" && [ \"\$(wc -l <\"$T/note\")\" = 1 ] && grep -q 'running the network on the CPU' \"$T/note\" && grep -q histc \"$T/nm.json\""
check "--debug: the Python traceback, then the one line" sh -c \
	"\"$IMPORT\" \"$SRC/tests/import/no_meta.py\" --debug 2>&1 >/dev/null | grep -q '^Traceback' && \"$IMPORT\" \"$SRC/tests/import/no_meta.py\" --debug 2>&1 | tail -1 | grep -q '^dramplan-import: .*aten::histc'"

# data-dependent shapes (sparse MoE): refused, or under a capacity factor
check "sparse MoE: refused in one line naming the op, the line and --capacity-factor" \
	one_line_err 1 "where(condition) at .*moe.py:[0-9]* in forward: its output shape depends on tensor values.*--capacity-factor F" \
	"$IMPORT" "$EX/moe.py:tiny_sparse" --seq 8 -o "$T/moe.json"
imp "$T/moe.json" "$EX/moe.py:tiny_sparse" --seq 8 --capacity-factor 1.25
check "sparse MoE, capacity 1.25: each expert's rows are ceil(1.25 x 16 / 4) = 5" jq_py "$T/moe.json" \
	"sorted(set(t['elems'] for t in m['cores'][0]['tensors'] if t['name'].startswith('nonzero'))) == [10]"
check "sparse MoE, capacity 1.25: plan passes verify" plan_ok "$T/moe.json"
check "dense MoE (scatter into a gate matrix): imports, plan passes verify" sh -c \
	"\"$IMPORT\" \"$EX/moe.py:tiny_dense\" --seq 8 -o \"$T/moed.json\" && \"$DRAMPLAN\" -q --no-svg -o \"$T/moed.plan\" \"$T/moed.json\" && \"$DRAMPLAN\" verify \"$T/moed.plan\" >/dev/null"

# recurrent layers step by step, in time linear in the sequence
imp "$T/lstm8.json" "$EX/lstm.py:tiny" --seq 8
imp "$T/lstm32.json" "$EX/lstm.py:tiny" --seq 32
ntensors() { "$PY" -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cores'][0]['tensors']))" "$1"; }
check "LSTM: each step of each layer adds its gates and cell state only (24 steps x 2 layers x 2)" \
	test $(($(ntensors "$T/lstm32.json") - $(ntensors "$T/lstm8.json"))) -eq 96
check "LSTM: plan passes verify (search)" plan_ok "$T/lstm32.json" --strategy search
check "LSTM: the steps' gates reuse memory (64 gate tensors at 4 addresses or fewer; peak at the lower bound)" jq_py "$T/lstm32.json.plan" \
	"len(set(t['address'] for t in m['cores'][0]['tensors'] if t['name'].endswith('.gates'))) <= 4 and m['cores'][0]['peak'] == m['cores'][0]['lower_bound']"
check "LSTM training (batch 2, seq 512): imports within 60 s" timeout 60 "$IMPORT" "$EX/lstm.py:tiny" --train --batch 2 --seq 512 -o "$T/lstmt.json"
check "LSTM training: plan passes verify" plan_ok "$T/lstmt.json"
check "GRU inference: imports, plan passes verify" sh -c \
	"\"$IMPORT\" \"$EX/lstm.py:tiny_gru\" --seq 16 -o \"$T/gru.json\" && \"$DRAMPLAN\" -q --no-svg -o \"$T/gru.plan\" \"$T/gru.json\" && \"$DRAMPLAN\" verify \"$T/gru.plan\" >/dev/null"
check "GRU training: imports, plan passes verify" sh -c \
	"\"$IMPORT\" \"$EX/lstm.py:tiny_gru\" --seq 16 --train -o \"$T/grut.json\" && \"$DRAMPLAN\" -q --no-svg -o \"$T/grut.plan\" \"$T/grut.json\" && \"$DRAMPLAN\" verify \"$T/grut.plan\" >/dev/null"

# errors: one line, naming what fails
check "data-dependent control flow: one line naming the source line" \
	one_line_err 1 'untraceable.py:12 in forward' "$IMPORT" "$SRC/tests/import/untraceable.py"
check "a failing node: one line naming it" \
	one_line_err 1 "node 'fc'" "$IMPORT" "$SRC/tests/import/alias.py" --input-shape 7
mkdir "$T/dir"
check "-o DIR: an error, nothing written" one_line_err 1 'is a directory' \
	"$IMPORT" "$SRC/tests/import/alias.py" -o "$T/dir"
echo '{}' >"$T/old.json" && chmod 640 "$T/old.json"
check "-o over a regular file: replaced, its mode kept" sh -c \
	"\"$IMPORT\" \"$SRC/tests/import/alias.py\" -o \"$T/old.json\" && [ \"\$(stat -c %a \"$T/old.json\")\" = 640 ] && grep -q dramplan-model \"$T/old.json\""
