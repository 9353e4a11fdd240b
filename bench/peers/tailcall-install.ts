/**
 * Installing the Tailcall peer on first use: its npm package (a prebuilt Rust binary) into
 * `bench/peers/tailcall/node_modules`, and, where the host's glibc is too old for that binary,
 * a newer glibc loader unpacked into `bench/peers/tailcall/glibc/` (both git-ignored).
 *
 * Why a private glibc: `@tailcallhq/core-linux-x64-gnu` 1.6.14 is linked against glibc 2.39
 * symbols, and Debian 12 ships 2.36. Debian 13's `libc6` package, unpacked (never installed),
 * brings a loader that runs the binary with its own libc while the rest of the machine keeps
 * its own: the binary is started as `ld-linux-x86-64.so.2 --library-path … tailcall`. The
 * package comes from Debian's mirror through apt itself, with a source list, state and cache of
 * its own in a temporary folder, so the Release signature is checked against the keyring the
 * system already trusts and the system's apt configuration is not touched.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The peer's folder: package.json, package-lock.json, the schema. */
export const TAILCALL_DIR = fileURLToPath(new URL('./tailcall/', import.meta.url));
/** The Tailcall binary the npm package ships. */
export const TAILCALL_BINARY = join(TAILCALL_DIR, 'node_modules/@tailcallhq/core-linux-x64-gnu/bin/tailcall');
/** Where Debian 13's libc6 is unpacked when the host's glibc is too old. */
export const GLIBC_DIR = join(TAILCALL_DIR, 'glibc');
const GLIBC_LIBS = join(GLIBC_DIR, 'usr/lib/x86_64-linux-gnu');
const LOADER = join(GLIBC_LIBS, 'ld-linux-x86-64.so.2');
/** The Debian release whose libc6 is new enough (2.41), and the keyring that signs it. */
const DEBIAN_SUITE = 'trixie';
const DEBIAN_MIRROR = 'http://deb.debian.org/debian';
const DEBIAN_KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';

/** Whether the peer can run, and if not why (the bench prints it and goes on). */
export type InstallOutcome = { ok: true } | { ok: false; why: string };

/**
 * `npm ci` in the peer's folder when its node_modules is missing; then, unless the binary runs
 * with the host's glibc, the private glibc when it is missing. Never throws.
 */
export function ensureTailcallInstalled(): InstallOutcome {
  try {
    if (!existsSync(TAILCALL_BINARY)) {
      console.error('bench: installing Tailcall into bench/peers/tailcall (first run only)…');
      const npm = run('npm', ['ci', '--prefix', TAILCALL_DIR, '--no-audit', '--no-fund', '--loglevel=error']);
      if (npm) return { ok: false, why: `npm ci in bench/peers/tailcall failed: ${npm}` };
    }
    if (!existsSync(TAILCALL_BINARY)) return { ok: false, why: `${TAILCALL_BINARY} is missing after npm ci (not a linux-x64 glibc machine?)` };
    if (run(TAILCALL_BINARY, ['--version']) === undefined) return { ok: true };
    if (!existsSync(LOADER)) {
      console.error(`bench: Tailcall needs a newer glibc; unpacking Debian ${DEBIAN_SUITE}'s libc6 into bench/peers/tailcall/glibc (first run only)…`);
      const why = unpackGlibc();
      if (why) return { ok: false, why };
    }
    const [command, args] = tailcallCommand(['--version']);
    const failed = run(command, args);
    return failed ? { ok: false, why: `Tailcall does not run, even through the private glibc: ${failed}` } : { ok: true };
  } catch (error) {
    return { ok: false, why: `installing Tailcall failed: ${String(error)}` };
  }
}

/** The command line that runs `tailcall args…`: directly, or through the private glibc's loader. */
export function tailcallCommand(args: string[]): [string, string[]] {
  if (!existsSync(LOADER)) return [TAILCALL_BINARY, args];
  // The private libc first; the host's folder after it for libgcc_s, which Debian 13's libc6
  // does not carry and whose host version (GCC 12) is new enough.
  return [LOADER, ['--library-path', `${GLIBC_LIBS}:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu`, TAILCALL_BINARY, ...args]];
}

/** The version of the unpacked libc6 package, or undefined when the host's glibc is used. */
export function privateGlibcVersion(): string | undefined {
  const file = join(GLIBC_DIR, 'VERSION');
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

// Private: download libc6 from Debian's mirror with a private apt state, unpack it beside the
// binary (into a temporary name first, so an interrupted run leaves no half folder behind).
// Returns why it failed, or undefined.
function unpackGlibc(): string | undefined {
  const work = mkdtempSync(join(tmpdir(), 'tailcall-glibc-'));
  try {
    for (const dir of ['state/lists/partial', 'cache/archives/partial', 'download']) mkdirSync(join(work, dir), { recursive: true });
    writeFileSync(join(work, 'sources.list'), `deb [signed-by=${DEBIAN_KEYRING}] ${DEBIAN_MIRROR} ${DEBIAN_SUITE} main\n`);
    const apt = [
      '-o', `Dir::Etc::sourcelist=${join(work, 'sources.list')}`, '-o', 'Dir::Etc::sourceparts=-',
      '-o', `Dir::State=${join(work, 'state')}`, '-o', `Dir::Cache=${join(work, 'cache')}`,
      '-o', 'Dir::State::status=/var/lib/dpkg/status', '-o', 'Acquire::Languages=none',
      // apt drops to the `_apt` user to download, which cannot write into a root-owned temp folder.
      ...(process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : []),
    ];
    const update = run('apt-get', [...apt, '-qq', 'update']);
    if (update) return `apt-get update of Debian ${DEBIAN_SUITE}'s index failed: ${update}`;
    const download = run('apt-get', [...apt, '-qq', 'download', 'libc6'], join(work, 'download'));
    if (download) return `apt-get download libc6 (${DEBIAN_SUITE}) failed: ${download}`;
    const deb = readdirSync(join(work, 'download')).find((name) => name.endsWith('.deb'));
    if (!deb) return `apt-get download libc6 (${DEBIAN_SUITE}) left no .deb`;
    const staging = `${GLIBC_DIR}.partial`;
    rmSync(staging, { recursive: true, force: true });
    const unpack = run('dpkg-deb', ['-x', join(work, 'download', deb), staging]);
    if (unpack) return `dpkg-deb -x ${deb} failed: ${unpack}`;
    const version = spawnSync('dpkg-deb', ['-f', join(work, 'download', deb), 'Version'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(join(staging, 'VERSION'), `libc6 ${version} (Debian ${DEBIAN_SUITE})\n`);
    renameSync(staging, GLIBC_DIR);
    return undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// Private: run a command to completion; undefined when it succeeded, else its exit and last error lines.
function run(command: string, args: string[], cwd?: string): string | undefined {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) return String(result.error);
  if (result.status === 0) return undefined;
  const tail = `${result.stderr ?? ''}`.trim().split('\n').slice(-3).join(' | ');
  return `exit ${result.status ?? result.signal}${tail ? `: ${tail}` : ''}`;
}
