#!/usr/bin/env bash
# The kind end-to-end run: a 3-node kind cluster, the Vigil image and an RTSP test camera image built and loaded,
# the chart installed with PostgreSQL, Cameras applied; then kind-test/scenario.mjs checks recording, segments through a
# port-forward (307 followed), a worker's failover (docker stop, archive gap <= 20 s) and a one-node-at-a-time upgrade.
# Needs docker, kind and node 20; kubectl and helm come from the repository (scripts/setup.sh kind).
# usage: kind-test/run.sh          env: VIGIL_KIND_KEEP=1 keeps the cluster, VIGIL_KIND_DATA=DIR the hostPath roots
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
cluster="vigil"
namespace="vigil"
data="${VIGIL_KIND_DATA:-$root/var/kind}"
kubeconfig="$data/kubeconfig"

say() { printf '\n== kind-test: %s\n' "$*"; }
fail() { printf 'kind-test: FAILED: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 is not installed ($2)"; }

need docker "https://docs.docker.com/engine/install/"
need kind "https://kind.sigs.k8s.io/docs/user/quick-start/#installation"
need node "Node.js 20.19 or newer"
docker info >/dev/null 2>&1 || fail "docker is installed but its daemon does not answer (docker info)"

say "npm dependencies, kubectl and helm, build"
bash scripts/setup.sh kind
npm run build >/dev/null
kubectl="$root/testing/.tools/kubectl"
helm="$root/testing/.tools/helm"
version="$(node -p 'require("./package.json").version')"
image="vigil:$version"
camera_image="vigil-rtsp-camera:test"

say "build $image and $camera_image"
docker build --build-arg VERSION="$version" --build-arg REVISION="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" -t "$image" . || fail "docker build of $image"
docker build -t "$camera_image" -f kind-test/rtsp-camera.Dockerfile testing/fixtures || fail "docker build of $camera_image"

diagnose() {
  echo "--- diagnostics" >&2
  KUBECONFIG="$kubeconfig" "$kubectl" get nodes,recordernodes -o wide >&2 || true
  KUBECONFIG="$kubeconfig" "$kubectl" -n "$namespace" get pods,cameras -o wide >&2 || true
  KUBECONFIG="$kubeconfig" "$kubectl" -n "$namespace" get events --sort-by=.lastTimestamp 2>&1 | tail -40 >&2 || true
  KUBECONFIG="$kubeconfig" "$kubectl" -n "$namespace" logs deploy/vigil-operator --tail=60 >&2 || true
  KUBECONFIG="$kubeconfig" "$kubectl" -n "$namespace" logs -l app.kubernetes.io/component=recorder --tail=30 --prefix >&2 || true
}
finish() {
  code=$?
  if [ "$code" -ne 0 ]; then diagnose; fi
  if [ "${VIGIL_KIND_KEEP:-0}" = "1" ]; then
    echo "kind-test: cluster kept: export KUBECONFIG=$kubeconfig" >&2
  else
    kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
  fi
  if [ "$code" -eq 0 ]; then echo "kind-test: PASSED"; else echo "kind-test: FAILED (exit $code)" >&2; fi
}

say "create the kind cluster $cluster (hostPath roots under $data)"
kind delete cluster --name "$cluster" >/dev/null 2>&1 || true
for node in control-plane worker worker2; do mkdir -p "$data/$node/recordings" "$data/$node/data"; done
sed "s#__DATA__#$data#g" kind-test/kind-config.yaml >"$data/kind-config.yaml"
trap finish EXIT
kind create cluster --name "$cluster" --config "$data/kind-config.yaml" --kubeconfig "$kubeconfig" --wait 180s || fail "kind create cluster"
export KUBECONFIG="$kubeconfig"
kind load docker-image --name "$cluster" "$image" "$camera_image" || fail "kind load docker-image"

say "helm install vigil (PostgreSQL enabled) into a namespace whose Pod Security level admits hostPath"
"$kubectl" create namespace "$namespace" || fail "create namespace"
"$kubectl" label namespace "$namespace" pod-security.kubernetes.io/enforce=privileged || fail "label namespace"
"$helm" install vigil helm/vigil --namespace "$namespace" -f kind-test/values.yaml \
  --set image.tag="$version" --wait --timeout 5m || fail "helm install"
"$kubectl" -n "$namespace" apply -f kind-test/rtsp-camera.yaml
"$kubectl" -n "$namespace" rollout status deploy/rtsp-camera --timeout 180s || fail "the RTSP test camera did not start"
"$kubectl" -n "$namespace" apply -f kind-test/cameras.yaml

say "the release CA (the recorders serve HTTPS; the scenario checks their certificates against it)"
for _ in $(seq 60); do
  "$kubectl" -n "$namespace" get configmap vigil-ca -o 'jsonpath={.data.ca\.crt}' >"$data/release-ca.crt" 2>/dev/null && [ -s "$data/release-ca.crt" ] && break
  sleep 2
done
[ -s "$data/release-ca.crt" ] || fail "the operator did not publish the release CA (ConfigMap vigil-ca)"

say "scenario"
NODE_EXTRA_CA_CERTS="$data/release-ca.crt" VIGIL_KIND_CLUSTER="$cluster" VIGIL_KIND_NAMESPACE="$namespace" VIGIL_KUBECTL="$kubectl" VIGIL_HELM="$helm" \
  VIGIL_KIND_TOKEN="vigil-kind-test-admin-token" VIGIL_KIND_VERSION="$version" \
  node kind-test/scenario.mjs || fail "scenario"
