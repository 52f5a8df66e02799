/**
 * classic-level's native addon, as the CLI bundle loads it (scripts/bundle-cli.mjs): `ls` and `show`
 * pay for finding it in their start-up, on every run. node-gyp-build finds it by reading
 * classic-level's package.json and listing its prebuilds, after loading its own code; where the
 * package holds exactly the prebuilt addons classic-level ships and nothing could steer the choice
 * elsewhere, the addon it would pick is known, and loaded directly. Anything else — an environment
 * override, a local build, musl, another runtime, another layout — is left to node-gyp-build.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Settings node-gyp-build reads that could make it pick another addon than the shipped one. */
const STEERING = ['CLASSIC_LEVEL_PREBUILD', 'PREBUILDS_ONLY', 'npm_config_arch', 'npm_config_platform', 'LIBC', 'ARM_VERSION', 'ELECTRON_RUN_AS_NODE'];
/** The files classic-level ships in a `prebuilds/<platform>-<arch>` folder (glibc or any libc, and musl). */
const ADDON = 'classic-level.node';
const MUSL_ADDON = 'classic-level.musl.node';

/** What `shippedAddon` looks at; the real process and file system by default. */
export interface AddonHost {
  env: Readonly<Record<string, string | undefined>>;
  platform: string;
  arch: string;
  /** Another runtime than Node (Electron, NW.js) picks by other tags. */
  otherRuntime: boolean;
  exists(path: string): boolean;
  /** A folder's entries; throws when there is no such folder. */
  list(path: string): string[];
}

const realHost: AddonHost = {
  env: process.env,
  platform: process.platform,
  arch: process.arch,
  otherRuntime: process.versions.electron !== undefined || (process.versions as Record<string, string | undefined>).nw !== undefined,
  exists: existsSync,
  list: (path) => readdirSync(path),
};

/**
 * The prebuilt addon node-gyp-build would load from classic-level's directory `dir`, when that is
 * certain without running it; undefined to let node-gyp-build decide.
 */
export function shippedAddon(dir: string, host: AddonHost = realHost): string | undefined {
  if (host.otherRuntime || STEERING.some((name) => host.env[name] !== undefined)) return undefined;
  // A local build (build/Release, build/Debug) wins over the prebuilds; musl systems take the musl one.
  if (host.exists(join(dir, 'build'))) return undefined;
  if (host.platform === 'linux' && host.exists('/etc/alpine-release')) return undefined;
  const folder = join(dir, 'prebuilds', `${host.platform}-${host.arch}`);
  let files: string[];
  try {
    files = host.list(folder);
  } catch {
    return undefined;
  }
  if (!files.includes(ADDON) || files.some((file) => file !== ADDON && file !== MUSL_ADDON)) return undefined;
  return join(folder, ADDON);
}

/** classic-level's binding, found from the `level` package as Node would find it unbundled. */
export function loadLevelBinding(): unknown {
  const fromLevel = createRequire(createRequire(import.meta.url).resolve('level/package.json'));
  const addon = shippedAddon(dirname(fromLevel.resolve('classic-level/package.json')));
  return fromLevel(addon ?? 'classic-level/binding.js');
}
