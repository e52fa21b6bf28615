#!/bin/sh
# Runs a command inside a private D-Bus session with a fresh, unlocked gnome-keyring, so the
# keychain tests exercise the real Secret Service. The keyring lives in a temporary
# XDG_DATA_HOME: a login keyring left on the machine with another password stays untouched.
# Without those tools the command runs as is and the keychain tests check the fallback path.
if command -v dbus-run-session >/dev/null 2>&1 && command -v gnome-keyring-daemon >/dev/null 2>&1; then
  keyring_home=$(mktemp -d "${TMPDIR:-/tmp}/dataset-sync-keyring.XXXXXX")
  trap 'rm -rf "$keyring_home"' EXIT INT TERM
  XDG_DATA_HOME="$keyring_home" dbus-run-session -- sh -c 'printf "dataset-sync-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1; DATASET_SYNC_REAL_KEYRING=1 exec "$@"' sh "$@"
  exit $?
fi
exec "$@"
