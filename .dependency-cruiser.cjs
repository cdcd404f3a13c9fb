/**
 * The layering rules of Larder's source (docs/architecture.md, "Dependency rules"), checked by
 * test/architecture/dependency-rules.test.ts in `npm test` and by `npx depcruise src`.
 * TypeScript 7's compiler has no JavaScript API, so dependency-cruiser parses with swc.
 * Folder cycles are checked by the same test on this tool's dependency graph.
 */
module.exports = {
  forbidden: [
    {
      name: 'modules-only-through-module-api',
      comment: 'A module (src/modules/<name>/) reaches the core only through src/module-api/, and no other module.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/', pathNot: ['^src/modules/$1/', '^src/module-api/'] },
    },
    {
      name: 'core-not-into-modules',
      comment: 'The core never imports a module; only the composition root names them (src/modules/index.ts).',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/modules/', '\\.test\\.ts$'] },
      to: { path: '^src/modules/', pathNot: '^src/modules/index\\.ts$' },
    },
    {
      name: 'module-registry-only-from-composition-root',
      comment: 'Only the composition root (app, serve, the CLI) may name the module list.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/(app|main)\\.ts$', '^src/cli/', '\\.test\\.ts$'] },
      to: { path: '^src/modules/index\\.ts$' },
    },
    {
      name: 'planner-only-through-its-index',
      comment: 'Outside src/plan/ the planner is used through src/plan/index.ts only: its ACL clauses, field policy and inner-query permissions are not composed by callers.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/plan/', '\\.test\\.ts$'] },
      to: { path: '^src/plan/', pathNot: '^src/plan/index\\.ts$' },
    },
    {
      name: 'acl-clause-only-in-planner',
      comment: 'The read-ACL clause (query/sql/compile-subquery.ts) is used by the where compiler and the planner only.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/plan/', '^src/query/', '\\.test\\.ts$'] },
      to: { path: '^src/query/sql/compile-subquery\\.ts$' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
