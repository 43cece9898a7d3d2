/** @type {import('jest').Config} */
const project = {
  preset: 'ts-jest',
  testEnvironment: 'node',
  // every object rendered in a test goes through the API-server oracle (no longer in the render path)
  setupFilesAfterEnv: [
    '<rootDir>/test/support/kubernetes-validation/render-guard.ts',
    // no problem names another policy field as text (test/support/issue-guard.ts)
    '<rootDir>/test/support/issue-guard.ts',
  ],
  // jsii/ builds in place (jsii, npm ci: lib/, node_modules/, .core/ hold more packages named backup-cronjobs)
  modulePathIgnorePatterns: ['<rootDir>/jsii/'],
};

module.exports = {
  projects: [
    {
      ...project,
      displayName: 'unit',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['<rootDir>/test/kube/'],
    },
    // The tests against the real control plane: its global setup starts it once per run, and only
    // when one of these tests is selected.
    {
      ...project,
      displayName: 'kube',
      testMatch: ['<rootDir>/test/kube/**/*.test.ts'],
      globalSetup: '<rootDir>/test/kube/global-setup.ts',
      globalTeardown: '<rootDir>/test/kube/global-teardown.ts',
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
};
