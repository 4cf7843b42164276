#!/usr/bin/env bash
# Builds the tests' Kubernetes control plane from upstream Go modules, once per machine: kube-apiserver and
# kube-controller-manager from k8s.io/kubernetes (testing/control-plane/kube) and etcd from go.etcd.io/etcd/server/v3
# (testing/control-plane/etcd), into a cache outside the repository keyed by the versions and the module files.
# Prints the directory that holds the three binaries on its last line of stdout.
# usage: scripts/build-control-plane.sh        (VIGIL_CONTROL_PLANE_CACHE overrides ~/.cache/vigil/control-plane)
set -euo pipefail
cd "$(dirname "$0")/.."
kube_version=v1.35.4
kube_mod=testing/control-plane/kube
etcd_mod=testing/control-plane/etcd
etcd_version="$(awk '$1 == "require" && $2 == "go.etcd.io/etcd/server/v3" { print $3 }' "$etcd_mod/go.mod")"
fingerprint="$(cat "$kube_mod/go.mod" "$kube_mod/go.sum" "$etcd_mod/go.mod" "$etcd_mod/go.sum" "$0" | sha256sum | cut -c1-12)"
cache="${VIGIL_CONTROL_PLANE_CACHE:-$HOME/.cache/vigil/control-plane}"
target="$cache/kube-$kube_version-etcd-$etcd_version-$fingerprint"

if [ -x "$target/kube-apiserver" ] && [ -x "$target/kube-controller-manager" ] && [ -x "$target/etcd" ]; then
  echo "$target"
  exit 0
fi
go_minor="$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
if [ -z "$go_minor" ] || [ "$go_minor" -lt 25 ]; then
  echo "control-plane: Go 1.25 or newer is needed to build kube-apiserver, kube-controller-manager and etcd for the tests (found: $(go version 2>/dev/null || echo none))" >&2
  exit 1
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/.build.XXXXXX")"
trap 'rm -rf "$work"' EXIT
started=$SECONDS
# The version the binaries report (kubectl version, helm's kubeVersion checks, /version) is the module's own.
minor="${kube_version#v1.}"; minor="${minor%%.*}"
version_ldflags="-X k8s.io/component-base/version.gitVersion=$kube_version -X k8s.io/component-base/version.gitMajor=1"
version_ldflags+=" -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
version_ldflags+=" -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
version_ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$kube_version"

echo "control-plane: building etcd $etcd_version (once per machine, into $target)" >&2
(cd "$etcd_mod" && go build -trimpath -ldflags "-s -w" -o "$work/etcd" go.etcd.io/etcd/server/v3)
echo "control-plane: etcd built after $((SECONDS - started)) s; building kube-apiserver and kube-controller-manager $kube_version (about 15-25 minutes on 2 cores the first time)" >&2
for command in kube-apiserver kube-controller-manager; do
  (cd "$kube_mod" && go build -trimpath -ldflags "-s -w $version_ldflags" -o "$work/$command" "k8s.io/kubernetes/cmd/$command")
  echo "control-plane: $command built after $((SECONDS - started)) s" >&2
done
"$work/kube-apiserver" --version >&2
rm -rf "$target"
mv "$work" "$target"
trap - EXIT
echo "control-plane: ready in $target after $((SECONDS - started)) s" >&2
echo "$target"
