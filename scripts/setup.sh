#!/usr/bin/env bash
# Installs what datebook needs to build, test and benchmark, only where it is missing.
# Safe to run again; used by `make demo`, `make test` (with --test) and `make bench` (--bench).
set -euo pipefail

apt_packages=(
  libsqlite3-dev          # CSQLite: the store
  libcurl4-openssl-dev    # CCurl: HTTP and SMTP delivery
  libical-dev             # CICal: iCalendar and RRULE
  libcmark-gfm-dev        # CCmark: Markdown → HTML
  libcmark-gfm-extensions-dev
  libmicrohttpd-dev       # CMicroHTTPD: datebook serve (opened at run time by serve only)
  libpq-dev               # CPostgres: the PostgreSQL store backend (libpq)
  libxml2                 # CXML2: the CalDAV sync's XML reader (opened at run time by the sync only)
  tzdata                  # time zones for Foundation and libical
  python3                 # test servers (HTTP sink, SMTP)
  python3-aiosmtpd        # the real SMTP server the email tests deliver to
  openssl                 # self-signed certificates for the TLS tests
  dbus                    # the desktop tests' private session bus (dbus-daemon)
  libnotify-bin           # notify-send: what the desktop channel runs
  python3-dbus            # the desktop tests' scripted notification server
  python3-gi              # its GLib main loop
  pkg-config
)
if [ "${1:-}" = "--test" ]; then
  apt_packages+=(
    groff                 # the man page tests: groff -man -ww -z on datebook(1) and datebook-config(5)
    man-db                # man -l renders them
    bash-completion       # the completion tests run each real shell on its script
    zsh
    fish
    chromium              # the web pages in a real browser (headless: screenshots, --dump-dom)
    fonts-noto-color-emoji  # emoji in those screenshots
    postgresql            # the PostgreSQL store tests start their own server (initdb, pg_ctl)
  )
fi
if [ "${1:-}" = "--bench" ]; then
  apt_packages+=(
    nginx-light           # the fast local sink of the delivery benchmark; the static page beside datebook serve
    wrk                   # the load of the serve benchmark
    postgresql            # the PostgreSQL store benchmark
  )
fi

missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The iCalendar peer check (Tests/DatebookICalTests/PeerCheckTests.swift) and the CalDAV tests' server
# (Radicale, Tests/DatebookTestSupport/Radicale.swift) and the Slack payload validator (slack-sdk,
# Tests/DatebookRenderTests/SlackValidationTests.swift) run the first python3 on PATH; only the tests need them. Debian's own python3 is "externally managed": pip is then told so
# (--break-system-packages, which installs under /usr/local) instead of failing first.
if [ "${1:-}" = "--test" ] && ! python3 -c 'import icalendar, recurring_ical_events, radicale, slack_sdk' >/dev/null 2>&1; then
  echo "setup: installing icalendar recurring-ical-events radicale slack-sdk for $(command -v python3)" >&2
  pip_options=(--quiet --disable-pip-version-check --no-warn-script-location)
  if [ "$(id -u)" -eq 0 ]; then pip_options+=(--root-user-action=ignore); fi
  if python3 -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    pip_options+=(--break-system-packages)
  fi
  python3 -m pip install "${pip_options[@]}" icalendar recurring-ical-events radicale slack-sdk
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "setup: Swift 6 is required (https://www.swift.org/install/linux/)" >&2
  fi
  exit 1
fi
