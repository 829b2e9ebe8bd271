// @ts-check
/**
 * Import rules for `functions/` checked by dependency-cruiser (`npm run lint:deps`, part of
 * `npm run lint`). It follows static imports, type-only imports and `import()` of a literal
 * specifier: an `import()` through a template string is invisible to it, so none is used.
 */

/** Handler modules and the wrappers that turn a use case into a Lambda handler. */
const HANDLERS =
  '^functions/(api|pipeline)/[^/]+[.]handler[.]ts$|^functions/api/http-handler[.]ts$|^functions/pipeline/(stage-handler|sqs-consumer)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module under functions/ imports (directly or through others, import() included) a ' +
        'module that imports it. The composition roots build ports; the runtime imports the ' +
        'handlers, never the other way round. A type-only import back is no circle: it is erased ' +
        'at compile time (verbatimModuleSyntax).',
      from: { path: '^functions/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'core-infrastructure-free',
      severity: 'error',
      comment:
        'core is infrastructure-free; use a port (same rule as coreBoundary in eslint.config.mjs)',
      from: { path: '^functions/core/' },
      to: {
        path: [
          '^node_modules/@aws-sdk/',
          '^node_modules/@middy/',
          '^node_modules/(@types/)?aws-lambda/',
          '^(node:)?fs(/|$)',
        ],
      },
    },
    {
      name: 'core-no-outer-layers',
      severity: 'error',
      comment: 'core may not import outer layers (same rule as coreBoundary in eslint.config.mjs)',
      from: { path: '^functions/core/' },
      to: {
        path: [
          '^functions/(adapters|api|engines|providers)/',
          '[.]handler[^/]*$',
          '^functions/config',
          '^functions/local-runtime',
        ],
      },
    },
    {
      name: 'core-no-container',
      severity: 'error',
      comment: 'core never imports the composition roots',
      from: { path: '^functions/core/' },
      to: { path: '^functions/container' },
    },
    {
      name: 'adapters-no-handlers',
      severity: 'error',
      comment:
        'adapters implement ports; they never import handler modules (functions/api, ' +
        'functions/pipeline) nor the wrappers that make handlers',
      from: { path: '^functions/adapters/' },
      to: { path: HANDLERS },
    },
    {
      name: 'adapters-no-composition-root',
      severity: 'error',
      comment:
        'adapters never import the composition roots (container*, local-runtime, local-server)',
      from: { path: '^functions/adapters/' },
      to: { path: '^functions/(container|local-runtime|local-server)' },
    },
    {
      name: 'handlers-not-to-local-runtime',
      severity: 'error',
      comment:
        'A Lambda bundle holds what its handler module reaches: never the local runtime, its ' +
        'composition root or the local adapters',
      from: { path: '^functions/(api|pipeline)/[^/]+[.]handler[.]ts$' },
      to: {
        path: '^functions/(adapters/local/|container-local[.]ts$|local-runtime[.]ts$)',
        reachable: true,
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: `import type` of a module that imports back is a circle too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
  },
};
