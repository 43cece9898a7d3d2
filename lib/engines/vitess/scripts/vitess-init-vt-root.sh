# shellcheck shell=sh
# Init container of a Vitess backup pod (vtbackup image): copies the Vitess
# binaries and mysqld config into the shared vt-root volume, mounted at
# /mnt/vt. POSIX port of vitess-operator's init-vt-root script, plus
# vtctldclient for the entry script. It pushes no metrics: it only copies
# files, and when it fails the pod fails before the backup container starts,
# which kube-state-metrics reports as the Job's failure (BackupFailed).
# Env (tests): VT_BIN_SOURCE (default /vt/bin), VT_CONFIG_SOURCE (default
# /vt/config), CA_BUNDLE (default /etc/ssl/certs/ca-certificates.crt).

copy_missing() {
  # cp --no-clobber is not POSIX: copy only when the target does not exist.
  [ -e "$2/$(basename "$1")" ] || cp -R "$1" "$2/"
}

main() {
  root=/mnt/vt bin=${VT_BIN_SOURCE:-/vt/bin} config=${VT_CONFIG_SOURCE:-/vt/config}
  mkdir -p "$root/bin" "$root/config" "$root/certs" "$root/socket" "$root/vtdataroot"
  for tool in vtbackup vtctldclient; do
    [ -x "$bin/$tool" ] || die "$bin/$tool not found in the vtbackup image"
    copy_missing "$bin/$tool" "$root/bin"
  done
  if [ -d "$config/mycnf" ]; then
    copy_missing "$config/mycnf" "$root/config"
  else
    mkdir -p "$root/config/mycnf"
  fi
  ln -sf /dev/stderr "$root/config/stderr.symlink"
  echo "log-error = /vt/config/stderr.symlink" > "$root/config/mycnf/log-error.cnf"
  echo "binlog_format=row" > "$root/config/mycnf/rbr.cnf"
  printf 'sync_binlog=0\ninnodb_flush_log_at_trx_commit=0\n' > "$root/config/mycnf/vtbackup.cnf"
  echo "socket = /vt/socket/mysql.sock" > "$root/config/mycnf/socket.cnf"
  ca=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
  if [ -f "$ca" ]; then copy_missing "$ca" "$root/certs"; fi
  info "vt-root prepared"
}

main "$@"
