// ES modules as they are: no transform (run jest with node --experimental-vm-modules).
export default { testEnvironment: 'node', transform: {}, testMatch: ['**/*.test.mjs'] };
