// The example's own config (vitest run --root vitest), so no config of a project around it applies.
export default { test: { include: ['*.test.mjs'] } };
