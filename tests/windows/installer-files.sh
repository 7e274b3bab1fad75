#!/usr/bin/env bash
# Checks that the Windows installer and the portable zip carry the same files as the build stages:
#   - every file scripts/build-windows stages is installed by packaging/windows/installer.nsi
#     (a `File "${STAGE}\NAME"` line), and the installer names no file the build does not stage;
#   - the uninstaller deletes every installed file (a `Delete "$INSTDIR\NAME"` line each), plus
#     itself, and nothing else;
#   - the portable zip holds the staged files plus the two Start-menu scripts, in one folder;
#   - the test-only ProcessPrng stand-in (tests/windows/prng-shim) is in none of them.
# The staging is scripts/build-windows's own code run on stand-in programs (--stage-standins), so
# a file added to the build and not to the installer script, or the other way round, fails here.
# Takes about a second; needs zip and unzip.
set -euo pipefail
cd "$(dirname "$0")/../.."
NSI=packaging/windows/installer.nsi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/build-windows --stage-standins "$tmp"

failed=0
# Compare two sorted lists (files $2 and $3) and say plainly what differs. $1 says what is compared.
same() {
  local what=$1 left=$2 right=$3 only_left only_right
  only_left=$(comm -23 "$left" "$right")
  only_right=$(comm -13 "$left" "$right")
  if [[ -z "$only_left$only_right" ]]; then
    echo "ok    $what"
  else
    echo "FAIL  $what"
    [[ -n "$only_left" ]] && printf '      only in %s: %s\n' "$(basename "$left" .txt | tr - ' ')" "$(echo "$only_left" | paste -sd, | sed 's/,/, /g')"
    [[ -n "$only_right" ]] && printf '      only in %s: %s\n' "$(basename "$right" .txt | tr - ' ')" "$(echo "$only_right" | paste -sd, | sed 's/,/, /g')"
    failed=1
  fi
}

# The installer script's names with its own !define values put in (${APPEXE} -> psebench-studio.exe).
resolve() {
  local line name value
  while IFS= read -r line; do
    while [[ "$line" =~ \$\{([A-Z_]+)\} ]]; do
      name=${BASH_REMATCH[1]}
      value=$(sed -n "s/^!define $name \"\(.*\)\"\$/\1/p" "$NSI" | awk 'NR == 1')
      [[ -n "$value" ]] || { echo "installer-files: $NSI uses \${$name} but does not define it" >&2; exit 1; }
      line=${line//"\${$name}"/$value}
    done
    printf '%s\n' "$line"
  done
}

LC_ALL=C sort "$tmp/installer-files.txt" >"$tmp/the-build's-staging.txt"
# File "${STAGE}\NAME"  ->  NAME
sed -n 's/^[[:space:]]*File "\${STAGE}\\\(.*\)"[[:space:]]*$/\1/p' "$NSI" | resolve | LC_ALL=C sort >"$tmp/installer.nsi-File-lines.txt"
[[ -s "$tmp/installer.nsi-File-lines.txt" ]] || { echo "installer-files: found no File lines in $NSI" >&2; exit 1; }
# Delete "$INSTDIR\NAME"  ->  NAME (the uninstaller removes itself too)
uninst=$(resolve <<<'${UNINSTEXE}')
sed -n 's/^[[:space:]]*Delete "\$INSTDIR\\\(.*\)"[[:space:]]*$/\1/p' "$NSI" | resolve | grep -vxF "$uninst" | LC_ALL=C sort >"$tmp/the-uninstaller's-Delete-lines.txt"
# The zip's files, without their common folder.
folder=$(unzip -Z1 "$tmp/portable.zip" | awk -F/ 'NR == 1 { print $1 }')
unzip -Z1 "$tmp/portable.zip" | grep -v '/$' | sed "s|^$folder/||" | LC_ALL=C sort >"$tmp/the-portable-zip.txt"
{ cat "$tmp/installer-files.txt"; printf '%s\n' "Add to Start menu.cmd" "Remove from Start menu.cmd"; } | LC_ALL=C sort >"$tmp/staging-plus-Start-menu-scripts.txt"

same "the installer installs exactly the files the build stages" "$tmp/the-build's-staging.txt" "$tmp/installer.nsi-File-lines.txt"
same "the uninstaller deletes exactly the installed files (and itself)" "$tmp/installer.nsi-File-lines.txt" "$tmp/the-uninstaller's-Delete-lines.txt"
same "the portable zip holds the staged files and the two Start-menu scripts" "$tmp/staging-plus-Start-menu-scripts.txt" "$tmp/the-portable-zip.txt"
if [[ $(unzip -Z1 "$tmp/portable.zip" | grep -v '/$' | cut -d/ -f1 | sort -u) == "$folder" ]]; then
  echo "ok    the portable zip unpacks into one folder ($folder)"
else
  echo "FAIL  the portable zip does not keep all its files in one folder"
  failed=1
fi
if cat "$tmp/installer.nsi-File-lines.txt" "$tmp/the-portable-zip.txt" | grep -qix 'bcryptprimitives.dll'; then
  echo "FAIL  the test-only bcryptprimitives.dll is in what users install"
  failed=1
else
  echo "ok    the test-only bcryptprimitives.dll is in neither the installer nor the zip"
fi
exit $failed
