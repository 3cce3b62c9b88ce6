#!/bin/sh
# Records what the real Timoni CLI (v0.33, CUE v0.17.1) builds from the
# fixtures here; libs/timoni/src/timoni-golden.spec.ts compares Flotilla's
# builds with these files object by object. Build Timoni yourself and run:
#
#   libs/timoni/testdata/timoni-golden/regenerate.sh /path/to/timoni
#
# then review the diff of out/.
set -eu
TIMONI=${TIMONI:-${1:-}}
: "${TIMONI:?give the path of a timoni binary as TIMONI or the first argument}"
cd "$(dirname "$0")"
mkdir -p out
export TIMONI_KUBE_VERSION=1.36.3

"$TIMONI" version > out/timoni-version.txt

build() {
	out=$1
	shift
	(cd modules && "$TIMONI" build "$@" -o json) > "out/$out.json"
}
build checksum-defaults web ./checksum -n apps
build checksum-values web ./checksum -n apps -f ../values/checksum-a.cue -f ../values/checksum-b.yaml
build exact web ./exact -n default
build items web ./items -n apps

# A failing build: Timoni's message on stderr, without the log time.
(cd modules && ! "$TIMONI" build web ./checksum -n apps -f ../values/checksum-bad.cue 2>&1 >/dev/null) | sed 's/^[0-9]*:[0-9]*[AP]M //' > out/checksum-bad.txt

(cd bundles && TEAM=platform "$TIMONI" bundle build -f fleet.cue --runtime-from-env) > out/fleet.yaml

# What Timoni stores as an instance's values needs a cluster: with KUBECONFIG
# set (a disposable test cluster, it creates and deletes the namespace
# "stored"), the bundle is applied without waiting and the values read back.
if [ -n "${KUBECONFIG:-}" ]; then
	(cd bundles && "$TIMONI" bundle apply -f stored.cue --wait=false >/dev/null 2>&1)
	for instance in web api; do
		"$TIMONI" inspect values "$instance" -n stored > "out/stored-$instance.cue"
	done
	(cd bundles && "$TIMONI" bundle delete -f stored.cue --wait=false >/dev/null 2>&1)
fi
