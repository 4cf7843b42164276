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
