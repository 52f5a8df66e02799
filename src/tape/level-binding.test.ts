import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shippedAddon, type AddonHost } from './level-binding.js';

const fromLevel = createRequire(createRequire(import.meta.url).resolve('level/package.json'));
const classicLevel = dirname(fromLevel.resolve('classic-level/package.json'));

/** A host where the shipped layout is all there is: linux-x64, glibc, nothing set. */
function host(changes: Partial<AddonHost> = {}, files: string[] = ['classic-level.node', 'classic-level.musl.node']): AddonHost {
  return {
    env: {},
    platform: 'linux',
    arch: 'x64',
    otherRuntime: false,
    exists: () => false,
    list: (path) => {
      if (path !== join('/pkg', 'prebuilds', 'linux-x64')) throw new Error(`ENOENT: ${path}`);
      return files;
    },
    ...changes,
  };
}

describe('the native addon of classic-level, found without node-gyp-build', () => {
  it('is the very file node-gyp-build picks on this machine', () => {
    const nodeGypBuild = createRequire(join(classicLevel, 'package.json'))('node-gyp-build') as { path(dir: string): string };
    expect(shippedAddon(classicLevel)).toBe(nodeGypBuild.path(classicLevel));
  });

  it('in the layout classic-level ships: the addon next to its musl twin, or alone', () => {
    expect(shippedAddon('/pkg', host())).toBe(join('/pkg', 'prebuilds', 'linux-x64', 'classic-level.node'));
    expect(shippedAddon('/pkg', host({}, ['classic-level.node']))).toBe(join('/pkg', 'prebuilds', 'linux-x64', 'classic-level.node'));
  });

  it('leaves the choice to node-gyp-build whenever something could make it pick another', () => {
    for (const name of ['CLASSIC_LEVEL_PREBUILD', 'PREBUILDS_ONLY', 'npm_config_arch', 'npm_config_platform', 'LIBC', 'ARM_VERSION', 'ELECTRON_RUN_AS_NODE']) {
      expect(shippedAddon('/pkg', host({ env: { [name]: '1' } })), name).toBeUndefined();
    }
    // A local build wins over the prebuilds; musl takes its own; another runtime has other tags.
    expect(shippedAddon('/pkg', host({ exists: (path) => path === join('/pkg', 'build') }))).toBeUndefined();
    expect(shippedAddon('/pkg', host({ exists: (path) => path === '/etc/alpine-release' }))).toBeUndefined();
    expect(shippedAddon('/pkg', host({ otherRuntime: true }))).toBeUndefined();
    // Another layout: a tagged addon node-gyp-build might prefer, or none for this platform.
    expect(shippedAddon('/pkg', host({}, ['classic-level.node', 'classic-level.glibc.node']))).toBeUndefined();
    expect(shippedAddon('/pkg', host({}, ['classic-level.armv7.node']))).toBeUndefined();
    expect(shippedAddon('/pkg', host({ arch: 'arm64' }))).toBeUndefined();
  });
});
