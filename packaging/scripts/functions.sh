# shellcheck shell=sh
# Steps of the deb maintainer scripts and the rpm scriptlets; the package build puts this file at the top of each
# (vigil_make_state_dirs is the deb's: the rpm lists those directories with owner and mode in %files).
# The service is enabled on the first install only, never started or restarted by the package (docs/operations.md).

vigil_systemd_running() { [ -d /run/systemd/system ]; }

vigil_create_user() {
  getent group vigil >/dev/null 2>&1 || groupadd --system vigil
  getent passwd vigil >/dev/null 2>&1 || useradd --system --gid vigil --home-dir /var/lib/vigil --no-create-home \
    --shell /usr/sbin/nologin --comment "Vigil camera recorder" vigil
}

# The directories the recorder writes, owned by vigil (first install; existing ones keep their owner and mode).
vigil_make_state_dirs() {
  for dir in /var/lib/vigil /var/lib/vigil/recordings /var/log/vigil; do
    [ -d "$dir" ] || install -d -m 0750 -o vigil -g vigil "$dir"
  done
}

# The API's certificate when none exists yet (first install, or an upgrade from a version without TLS): self-signed,
# ECDSA P-256, ten years, for this host's names and loopback. The packaged config.yaml points tls at it, so the API is
# never plain HTTP by default. Never replaced once there: put your own certificate in its place (operations.md).
vigil_make_certificate() {
  dir=/etc/vigil/tls
  if [ -e "$dir/vigil.crt" ] || [ -e "$dir/vigil.key" ]; then return 0; fi
  if ! command -v openssl >/dev/null 2>&1; then
    echo "vigil: openssl is not installed, so no certificate was made in $dir; the recorder refuses to start until tls.cert_file exists (see /usr/share/doc/vigil/operations.md)" >&2
    return 0
  fi
  install -d -m 0750 -o root -g vigil "$dir"
  fqdn="$(hostname -f 2>/dev/null || true)"
  short="$(hostname 2>/dev/null || true)"
  cn="${fqdn:-${short:-localhost}}"
  names="DNS:localhost,IP:127.0.0.1,IP:::1"
  for name in $short $fqdn; do
    case ",$names," in *",DNS:$name,"*) ;; *) names="DNS:$name,$names" ;; esac
  done
  if (umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 -subj "/CN=$cn" \
      -addext "subjectAltName=$names" -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature" \
      -addext "extendedKeyUsage=serverAuth" -keyout "$dir/vigil.key.new" -out "$dir/vigil.crt.new" >/dev/null 2>&1); then
    chown root:vigil "$dir/vigil.key.new" "$dir/vigil.crt.new"
    chmod 0640 "$dir/vigil.key.new"
    chmod 0644 "$dir/vigil.crt.new"
    mv "$dir/vigil.key.new" "$dir/vigil.key"
    mv "$dir/vigil.crt.new" "$dir/vigil.crt"
    echo "vigil: made a self-signed certificate for $cn ($names) in $dir; replace it with one from your CA, see /usr/share/doc/vigil/operations.md" >&2
  else
    rm -f "$dir/vigil.key.new" "$dir/vigil.crt.new"
    echo "vigil: openssl could not make a certificate in $dir; make one (see /usr/share/doc/vigil/operations.md) before starting the recorder" >&2
  fi
}

vigil_enable() {
  if command -v systemctl >/dev/null 2>&1; then
    systemctl --quiet enable vigil.service || echo "vigil: could not enable vigil.service: run 'systemctl enable vigil'" >&2
    echo "vigil: installed and enabled, not started. Edit /etc/vigil/config.yaml (an API token, your cameras), then: systemctl start vigil" >&2
  else
    echo "vigil: systemd is not present; start /usr/bin/vigil-recorder with your service manager" >&2
  fi
}

vigil_daemon_reload() {
  if vigil_systemd_running; then systemctl daemon-reload || true; fi
}

vigil_stop() {
  if vigil_systemd_running; then systemctl stop vigil.service || true; fi
}

vigil_disable() {
  if command -v systemctl >/dev/null 2>&1; then systemctl --quiet disable vigil.service 2>/dev/null || true; fi
  # After the unit file is gone systemctl cannot disable it: remove the link enable made.
  rm -f /etc/systemd/system/multi-user.target.wants/vigil.service
}

# Purge: the configuration, the logs and the working state go; the recordings never do (an empty archive directory goes).
vigil_purge() {
  rm -rf /etc/vigil /var/log/vigil
  if [ -d /var/lib/vigil ]; then
    find /var/lib/vigil -mindepth 1 -maxdepth 1 ! -name recordings -exec rm -rf {} +
    rmdir /var/lib/vigil/recordings 2>/dev/null || echo "vigil: the recordings in /var/lib/vigil/recordings are kept; delete them yourself when no longer needed" >&2
    rmdir /var/lib/vigil 2>/dev/null || true
  fi
}
