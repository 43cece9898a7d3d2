# shellcheck shell=sh
# needs: etcd-lib.sh
# The control-plane files archive (spec.etcd.controlPlaneFiles), made by the
# snapshot step (joined only when the policy archives them) with busybox's
# find, xargs, tar and gzip.
# ETCD_BACKUP_FILES: one line per host directory, "<host path> <mount path>"
# (the directory, mounted read-only at the mount path; neither has whitespace).

# etcd_archive_files OUT: archives the regular files and symlinks (not
# followed) under every ETCD_BACKUP_FILES directory into OUT (tar.gz, mode
# 0600), each named by its host path without the leading "/" (so
# `tar -xzf OUT -C /` puts them back), then lists OUT back and compares the
# listing with what was archived. Sets ETCD_FILES_ENTRIES, ETCD_FILES_SIZE,
# ETCD_FILES_SHA256. Dies on any problem.
# The archive names the files through a tree of symlinks in TMPDIR, one per
# directory at its host path, so that tar stores host paths while it reads
# the mounts (intermediate symlinks are followed, the files' own are not).
etcd_archive_files() {
  _af_out=$1
  _af_root=$TMPDIR/files-root
  _af_list=$TMPDIR/files-archived
  _af_dirs=''
  rm -rf "$_af_root"
  mkdir "$_af_root" || die "cannot create $_af_root"
  : >"$_af_list"
  printf '%s\n' "$ETCD_BACKUP_FILES" >"$TMPDIR/files-paths"
  while read -r _af_host _af_mount; do
    [ -n "$_af_host" ] || continue
    case $_af_host in /?*) ;; *) die "ETCD_BACKUP_FILES: '$_af_host' is not an absolute host path" ;; esac
    [ -d "$_af_mount" ] || die "control-plane files: $_af_host (mounted at '$_af_mount') is not a directory"
    mkdir -p "$_af_root${_af_host%/*}" || die "cannot create $_af_root${_af_host%/*}"
    ln -s "$_af_mount" "$_af_root$_af_host" || die "cannot link $_af_host into $_af_root"
    (cd "$_af_mount" && find . ! -type d) >"$TMPDIR/files-found" 2>"$TMPDIR/files-found.err" ||
      die "cannot list the files under $_af_host: $(etcd_last_line "$TMPDIR/files-found.err")"
    _AF_HOST=${_af_host#/} awk '{ print ENVIRON["_AF_HOST"] substr($0, 2) }' "$TMPDIR/files-found" >>"$_af_list"
    _af_dirs="$_af_dirs $_af_host"
  done <"$TMPDIR/files-paths"
  [ -s "$_af_list" ] || die "control-plane files: no file under$_af_dirs: nothing to archive"

  step_run etcd_tar_files "$_af_out" "$_af_root" "$_af_list" 2>"$TMPDIR/tar.err" ||
    die "archiving the control-plane files under$_af_dirs failed: $(etcd_last_line "$TMPDIR/tar.err")"
  step_run tar -tzf "$_af_out" >"$TMPDIR/files-listed" 2>"$TMPDIR/tar.err" ||
    die "the control-plane files archive $_af_out does not read back: $(etcd_last_line "$TMPDIR/tar.err")"
  # the two lists as multisets: "+<name>" listed but not archived, "-<name>" archived but not listed
  _af_diff=$(awk '
    NR == FNR { n[$0]++; next }
    n[$0] > 0 { n[$0]--; next }
    { extra = $0; exit }
    END { if (extra != "") { print "+" extra; exit } for (k in n) if (n[k] > 0) { print "-" k; exit } }' "$_af_list" "$TMPDIR/files-listed")
  case $_af_diff in
    '') ;;
    +*) die "the control-plane files archive $_af_out lists ${_af_diff#?}, which was not archived" ;;
    *) die "the control-plane files archive $_af_out lacks ${_af_diff#?}, which was archived" ;;
  esac
  _af_size=$(etcd_file_size "$_af_out") || die "cannot read the size of $_af_out"
  _af_sha256=$(sha256sum "$_af_out" | awk '{ print $1 }')
  [ "${#_af_sha256}" -eq 64 ] || die "cannot compute the sha256 of $_af_out"
  # shellcheck disable=SC2034 # read by the entry script
  ETCD_FILES_ENTRIES=$(wc -l <"$_af_list" | tr -d ' ') ETCD_FILES_SIZE=$_af_size ETCD_FILES_SHA256=$_af_sha256
}

# etcd_tar_files OUT ROOT LIST: tar.gz of the LIST names (one per line,
# relative to ROOT) into OUT, created 0600. One tar command line: if xargs
# had to split it, the archive would hold only the last part, which the
# listing check then reports.
etcd_tar_files() {
  umask 077
  rm -f "$1"
  tr '\n' '\0' <"$3" | xargs -0 tar -czf "$1" -C "$2"
}
