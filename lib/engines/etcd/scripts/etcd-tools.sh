# shellcheck shell=sh
# Entry of the `tools` init container (busybox image): copies the image's
# busybox into ETCD_BACKUP_TOOLS with a link for each applet the etcd steps
# use, so that they can run a shell (and awk, sha256sum, df ...) inside the
# etcd image, which has none since etcd 3.5.7. The busybox must be statically
# linked: the distroless etcd image has no C library (busybox:<version>-musl is).

# The applets the snapshot and restore steps (and retention.sh's listing)
# call; each script checks its own with require_cmd.
APPLETS='sh [ test true false awk sed grep cut tr sort uniq head tail od wc dd sha256sum cat cp mv rm ln mkdir mktemp chmod ls stat touch df date sleep env basename dirname expr id printf timeout find xargs tar gzip'

main() {
  require_env ETCD_BACKUP_TOOLS
  busybox=$(command -v busybox) || die "no busybox in this image (PATH=$PATH): images.busybox must provide a statically linked busybox"
  mkdir -p "$ETCD_BACKUP_TOOLS" || die "cannot create $ETCD_BACKUP_TOOLS"
  cp "$busybox" "$ETCD_BACKUP_TOOLS/busybox" || die "cannot copy $busybox to $ETCD_BACKUP_TOOLS"
  chmod 0755 "$ETCD_BACKUP_TOOLS/busybox"
  nl='
'
  have="$nl$("$ETCD_BACKUP_TOOLS/busybox" --list)$nl"
  for applet in $APPLETS; do
    case $have in
      *"$nl$applet$nl"*) ;;
      *) die "$busybox has no $applet applet; the etcd steps need: $APPLETS" ;;
    esac
  done
  # One process links every applet (`ln` per applet is a process each: about 45);
  # a busybox built without --install gets the links one by one.
  "$ETCD_BACKUP_TOOLS/busybox" --install -s "$ETCD_BACKUP_TOOLS" 2>/dev/null || :
  for applet in $APPLETS; do
    [ -L "$ETCD_BACKUP_TOOLS/$applet" ] || ln -sf busybox "$ETCD_BACKUP_TOOLS/$applet" || die "cannot link $ETCD_BACKUP_TOOLS/$applet"
  done
  "$ETCD_BACKUP_TOOLS/sh" -c true || die "$ETCD_BACKUP_TOOLS/sh does not run"
  info "installed $busybox into $ETCD_BACKUP_TOOLS with the applets $APPLETS"
}

main "$@"
