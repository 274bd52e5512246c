#!/bin/bash
# dramplan-import's host tests (TAP): small networks through the importer,
# planned by this build's dramplan and re-checked by `dramplan verify`.
# Built into $(O)/tests/import/test_import with the paths filled in; the
# tests that need PyTorch are skipped (TAP SKIP) without it.
DRAMPLAN=@DRAMPLAN@
IMPORT=@IMPORT@
SRC=@SRC@
PY=/usr/bin/python3
N=20

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
check "usage error: exit 2, one line" one_line_err 2 '^dramplan-import: ' "$IMPORT" --batch 0 x
check "without PyTorch: exit 1, one line naming the packages" \
	one_line_err 1 'python3-torch' "$PY" -S "$IMPORT" resnet18
check "--version" sh -c "\"$IMPORT\" --version | grep -qx \"dramplan-import $(cat "$SRC/VERSION")\""

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
jq_py() {	# FILE EXPR: a Python expression over the JSON `m` is true
	"$PY" -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
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

# errors: one line, naming what fails
check "data-dependent control flow: one line naming the source line" \
	one_line_err 1 'untraceable.py:14 in forward' "$IMPORT" "$SRC/tests/import/untraceable.py"
check "a failing node: one line naming it" \
	one_line_err 1 "node 'fc'" "$IMPORT" "$SRC/tests/import/alias.py" --input-shape 7
mkdir "$T/dir"
check "-o DIR: an error, nothing written" one_line_err 1 'is a directory' \
	"$IMPORT" "$SRC/tests/import/alias.py" -o "$T/dir"
echo '{}' >"$T/old.json" && chmod 640 "$T/old.json"
check "-o over a regular file: replaced, its mode kept" sh -c \
	"\"$IMPORT\" \"$SRC/tests/import/alias.py\" -o \"$T/old.json\" && [ \"\$(stat -c %a \"$T/old.json\")\" = 640 ] && grep -q dramplan-model \"$T/old.json\""
