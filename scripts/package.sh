#!/usr/bin/env bash
# Builds the deb and rpm of Vigil from the compiled workspaces (npm run build) into dist/ (or --out DIR):
#   vigil_<version>_amd64.deb and vigil-<version>-1.x86_64.rpm
# Both carry the same tree: /usr/lib/vigil (a Node.js runtime and the recorder and operator with production
# dependencies only), /usr/bin wrappers, the systemd unit, /etc/vigil/config.yaml as a configuration file, the docs.
# usage: scripts/package.sh [--version X.Y.Z] [--out DIR]   (VIGIL_PACKAGE_KEEP=1 keeps the staged trees in DIR/.build-*)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

version="$(node -p 'require("./package.json").version')"
out="$repo/dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: scripts/package.sh [--version X.Y.Z] [--out DIR]" >&2; exit 2 ;;
  esac
done
if ! [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "package: the version must be X.Y.Z (got '$version')" >&2; exit 2
fi
for ws in crds kube recorder operator; do
  if [ ! -d "$ws/dist/src" ]; then echo "package: $ws is not built: run npm run build first" >&2; exit 1; fi
done
node_version="$(node -p process.versions.node)"
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "package: the bundled runtime is the Node.js running this script; it must be 20.19 or newer (got $node_version)" >&2; exit 1
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$out/.build-$version"
[ -n "${VIGIL_PACKAGE_KEEP:-}" ] || rm -rf "$work"
stage="$work/stage"
app="$stage/usr/lib/vigil/app"
mkdir -p "$app"

# --- the application: compiled code of the four runtime workspaces, production dependencies from the lock file ---
node - "$repo" "$app" "$version" <<'EOF'
const fs = require('fs'); const path = require('path');
const [repo, app, version] = process.argv.slice(2);
const runtime = ['crds', 'kube', 'recorder', 'operator'];
const root = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
root.version = version; root.workspaces = runtime; delete root.scripts; delete root.devDependencies;
fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify(root, null, 2) + '\n');
for (const f of ['package-lock.json', '.npmrc']) fs.copyFileSync(path.join(repo, f), path.join(app, f));
for (const ws of runtime) {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, ws, 'package.json'), 'utf8'));
  pkg.version = version; delete pkg.scripts;
  fs.mkdirSync(path.join(app, ws), { recursive: true });
  fs.writeFileSync(path.join(app, ws, 'package.json'), JSON.stringify(pkg, null, 2) + '\n');
  for (const dir of ['bin', 'dist/src', 'dist/web']) {
    const from = path.join(repo, ws, dir);
    // Declarations are for compilers, not for the runtime.
    if (fs.existsSync(from)) fs.cpSync(from, path.join(app, ws, dir), { recursive: true, filter: (f) => !/\.d\.ts(\.map)?$/.test(f) });
  }
}
EOF
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline --loglevel=error >/dev/null)
rm -f "$app/.npmrc" "$app/node_modules/.package-lock.json"
# The dependencies' type declarations and source maps are for compilers and debuggers, not for the runtime (as with
# our own declarations above): about 3,500 of the 9,000 files, 45 of the 116 MB.
find "$app/node_modules" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.d.ts.map' \
  -o -name '*.js.map' -o -name '*.mjs.map' -o -name '*.cjs.map' \) -delete

# --- the Node.js runtime (official builds need only glibc 2.28+ and libstdc++) ---
install -D -m 0755 "$(node -p process.execPath)" "$stage/usr/lib/vigil/runtime/node"
"$stage/usr/lib/vigil/runtime/node" --version >/dev/null

install -D -m 0755 packaging/bin/vigil-recorder "$stage/usr/bin/vigil-recorder"
install -D -m 0755 packaging/bin/vigil-operator "$stage/usr/bin/vigil-operator"
install -D -m 0644 packaging/vigil.service "$stage/usr/lib/systemd/system/vigil.service"
install -d -m 0755 "$stage/etc/vigil/conf.d"
# The alerts (a Prometheus rules file) and the Grafana dashboard, generated from monitoring/tools (docs/runbooks.md).
install -D -m 0644 packaging/monitoring/vigil-rules.yaml "$stage/usr/share/vigil/prometheus/vigil-rules.yaml"
install -D -m 0644 packaging/monitoring/vigil-dashboard.json "$stage/usr/share/vigil/grafana/vigil-dashboard.json"
sed "s/@VERSION@/$version/g" packaging/config.yaml > "$stage/etc/vigil/config.yaml"
chmod 0640 "$stage/etc/vigil/config.yaml"
doc="$stage/usr/share/doc/vigil"
install -d "$doc"
for f in README.md docs/operations.md docs/configuration.md docs/api.md docs/recorder.md docs/archive.md docs/live.md docs/metrics.md docs/runbooks.md; do
  install -m 0644 "$f" "$doc/$(basename "$f")"
done
{
  echo "Vigil $version: the recorder, its configuration and documentation."
  echo
  echo "Bundled: Node.js $node_version under /usr/lib/vigil/runtime (MIT license, https://nodejs.org),"
  echo "and the npm packages under /usr/lib/vigil/app/node_modules, each with its own license file."
} > "$doc/copyright"

# Maintainer scripts: the shared functions written into each (a postrm runs after the package's files are gone).
fill_functions() { # template output
  awk -v functions="$repo/packaging/scripts/functions.sh" '
    $0 == "@FUNCTIONS@" { while ((getline line < functions) > 0) print line; close(functions); next } { print }' "$1" > "$2"
}

# --- deb ---
debroot="$work/deb"
cp -al "$stage" "$debroot"
mkdir -p "$debroot/DEBIAN"
for script in postinst prerm postrm; do
  fill_functions "packaging/deb/$script" "$debroot/DEBIAN/$script"
  chmod 0755 "$debroot/DEBIAN/$script"
done
echo /etc/vigil/config.yaml > "$debroot/DEBIAN/conffiles"
installed_kib="$(du -sk --exclude=DEBIAN "$debroot" | cut -f1)"
cat > "$debroot/DEBIAN/control" <<EOF
Package: vigil
Version: $version
Architecture: amd64
Maintainer: Vigil team <vigil@localhost>
Installed-Size: $installed_kib
Depends: ffmpeg, libc6 (>= 2.28), libstdc++6, openssl, passwd
Section: video
Priority: optional
Homepage: https://github.com/vigil/vigil
Description: Vigil camera recorder
 Records every camera without gaps into fragmented MP4 segments, shows live
 video in a browser, lists and exports any minute of the archive. Runs as the
 systemd unit vigil, configured in /etc/vigil/config.yaml; enabled on the first
 install but not started, never restarted by an upgrade. Carries its own
 Node.js $node_version runtime under /usr/lib/vigil.
EOF
(cd "$debroot" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
dpkg-deb --root-owner-group -Zgzip -z6 --build "$debroot" "$out/vigil_${version}_amd64.deb" >/dev/null

# --- rpm ---
spec="$work/vigil.spec"
sed -e "s/@VERSION@/$version/g" -e "s#@STAGE@#$stage#g" packaging/rpm/vigil.spec.in > "$spec.tmp"
fill_functions "$spec.tmp" "$spec"
rpmbuild -bb --quiet \
  --define "_topdir $work/rpmbuild" \
  --define "_rpmdir $out" \
  --define '_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm' \
  --define '_rpmfilename %{_build_name_fmt}' \
  "$spec" >/dev/null

[ -n "${VIGIL_PACKAGE_KEEP:-}" ] || rm -rf "$work"
echo "$out/vigil_${version}_amd64.deb"
echo "$out/vigil-${version}-1.x86_64.rpm"
