import { basename, join } from 'node:path';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { packageClosure } from '../bundling/package-closure.js';
import { acknowledge, FUNCTION_FINDINGS } from './acknowledge.js';

/** The repository root (where package-lock.json and node_modules are). */
export const PROJECT_ROOT = join(import.meta.dirname, '..', '..');

/**
 * Packages the document engines load at run time that esbuild cannot bundle: native addons
 * (sharp, @napi-rs/canvas), WebAssembly and worker scripts resolved from their own package
 * (PDFium, pdf.js, tesseract.js, libheif) and data files (fonts, CMaps, OCR language data).
 * They are kept external and shipped, with their dependencies, in the bundle's node_modules.
 */
export const ENGINE_PACKAGES = [
  'sharp',
  '@napi-rs/canvas',
  'pdfjs-dist',
  '@embedpdf/pdfium',
  'tesseract.js',
  '@tesseract.js-data/eng',
  'heic-decode',
  // The English word list of line-end hyphenation, loaded at run time.
  'an-array-of-english-words',
] as const;

/** Parts of the shipped packages the service never loads: other builds, types, other models. */
const UNUSED_PACKAGE_PARTS = [
  'node_modules/pdfjs-dist/build',
  'node_modules/pdfjs-dist/web',
  'node_modules/pdfjs-dist/types',
  'node_modules/pdfjs-dist/image_decoders',
  'node_modules/@tesseract.js-data/eng/4.0.0',
];

/** Packages only the local runtime loads (embedded DynamoDB, local state machine, file lock). */
const LOCAL_ONLY_PACKAGES = ['dynalite', 'aws-local-stepfunctions', 'proper-lockfile'];

/** Lambda's limit on a function's environment: 4 KB for all variables, measured as JSON. */
export const ENVIRONMENT_LIMIT_BYTES = 4096;

/**
 * Bytes counted for a value known only at deployment (a bucket or table name, a state machine
 * ARN): generated bucket names have at most 63 characters, generated table names about 60, and
 * a state machine ARN with its generated name about 150.
 */
const DEPLOY_TIME_VALUE_BYTES = 160;

/** The instruction set of every function: the shipped native builds are linux-x64 (glibc). */
export const ARCHITECTURE = lambda.Architecture.X86_64;

/**
 * The Node.js of every function, and the target of their bundles: the major that `.nvmrc` and
 * `engines` in package.json name, on which the service is developed and tested.
 */
export const RUNTIME = lambda.Runtime.NODEJS_22_X;
export const BUNDLE_TARGET = 'node22';

export interface ServiceFunctionProps {
  /** Handler module, relative to the repository root, e.g. `functions/api/live.handler.ts`. */
  readonly entry: string;
  readonly description: string;
  /** Environment beyond `RUNTIME_MODE=aws` (validated at cold start by `functions/config.ts`). */
  readonly environment: Record<string, string>;
  /** The function parses documents: it ships the engines and their workers (PDF, office). */
  readonly parsesDocuments?: boolean;
  /**
   * npm packages whose files the handler reads at run time (e.g. the API reference's scripts):
   * kept external and shipped, with their dependencies, in the bundle's node_modules.
   */
  readonly packages?: readonly string[];
  /** @default 512 (API), 3008 (engines: more memory is more CPU) */
  readonly memorySize?: number;
  /** @default 30 seconds */
  readonly timeout?: Duration;
  /**
   * Concurrent executions kept for this function, and its ceiling.
   * @default - none: the account's unreserved pool
   */
  readonly reservedConcurrentExecutions?: number;
  /** @default one month */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * A service Lambda: an ESM bundle of one handler module for `nodejs22.x` on x86_64, with X-Ray
 * tracing and its own log group with a retention period. Bundling is local (esbuild from
 * node_modules) and needs no network: functions that parse documents get {@link ENGINE_PACKAGES}
 * copied from the local install after bundling, and the engines' workers (PDF, office) bundled
 * beside the handler.
 */
export class ServiceFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    const parses = props.parsesDocuments ?? false;
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role instead of AWSLambdaBasicExecutionRole: it writes to its log group only.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${id} function`,
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    super(scope, id, {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      description: props.description,
      runtime: RUNTIME,
      architecture: ARCHITECTURE,
      memorySize: props.memorySize ?? (parses ? 3008 : 512),
      timeout: props.timeout ?? Duration.seconds(30),
      ...(props.reservedConcurrentExecutions === undefined
        ? {}
        : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      role,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      projectRoot: PROJECT_ROOT,
      environment: {
        RUNTIME_MODE: 'aws',
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        platform: 'node',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        logLevel: LogLevel.WARNING,
        // CommonJS dependencies call require() for Node built-ins; ESM bundles have none.
        banner:
          "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
        // Bundle-time switch read by functions/container.ts: functions that do not parse
        // documents ship without the engines. (The local adapters never ship: no module a
        // handler imports reaches them.)
        define: {
          'process.env.DOCPARSE_BUNDLE_ENGINES': JSON.stringify(parses ? 'on' : 'off'),
        },
        // The AWS SDK is bundled so that the deployed code runs the versions it was tested with.
        externalModules: [...LOCAL_ONLY_PACKAGES, ...ENGINE_PACKAGES, ...(props.packages ?? [])],
        ...(parses
          ? { commandHooks: engineHooks() }
          : props.packages
            ? { commandHooks: packageHooks(props.packages) }
            : {}),
      },
    });
    acknowledge(this, FUNCTION_FINDINGS);
    acknowledge(role, FUNCTION_FINDINGS);
    // At synth, so that variables added after construction count too.
    this.node.addValidation({ validate: () => this.#environmentProblems() });
  }

  /** Lambda refuses a deployment whose environment exceeds 4 KB: fail the synth instead. */
  #environmentProblems(): string[] {
    const cfn = this.node.defaultChild as lambda.CfnFunction;
    const resolved = Stack.of(this).resolve(cfn.environment) as
      { variables?: Record<string, unknown> } | undefined;
    const variables = Object.fromEntries(
      Object.entries(resolved?.variables ?? {}).map(([name, value]) => [name, estimated(value)]),
    );
    const size = Buffer.byteLength(JSON.stringify(variables));
    if (size <= ENVIRONMENT_LIMIT_BYTES) return [];
    const largest = Object.entries(variables)
      .map(([name, value]) => [name, Buffer.byteLength(JSON.stringify(value))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([name, bytes]) => `${name} (${String(bytes)} bytes)`);
    return [
      `the environment of this function would take ${String(size)} bytes, over Lambda's limit of ${String(ENVIRONMENT_LIMIT_BYTES)} bytes (4 KB, all variables as JSON, counting ${String(DEPLOY_TIME_VALUE_BYTES)} bytes for each name known only at deployment). The largest variables: ${largest.join(', ')}. Shorten the provider configuration (docparse:providers: fewer providers, without optional fields that repeat their defaults) or the values of docparse:env.`,
    ];
  }
}

/** A resolved environment value as a string, deployment-time values counted at their longest. */
function estimated(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const join = (value as { 'Fn::Join'?: [string, unknown[]] } | null)?.['Fn::Join'];
  if (join) return join[1].map(estimated).join(join[0]);
  return 'x'.repeat(DEPLOY_TIME_VALUE_BYTES);
}

/** Commands that copy `packages` and their dependencies from this checkout into `outputDir`. */
function packageCopies(packages: readonly string[], inputDir: string, outputDir: string): string[] {
  const q = (path: string) => `"${path}"`;
  // Resolved in this checkout; the commands name paths under the bundler's inputDir.
  return packageClosure(PROJECT_ROOT, packages).map(
    (dir) =>
      `mkdir -p ${q(join(outputDir, dir, '..'))} && cp -R ${q(join(inputDir, dir))} ${q(join(outputDir, dir, '..'))}/`,
  );
}

/** Bundling hooks that ship `packages` next to the handler, without their source maps. */
function packageHooks(packages: readonly string[]) {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string): string[] => [
      ...packageCopies(packages, inputDir, outputDir),
      `find "${join(outputDir, 'node_modules')}" -name '*.map' -delete`,
    ],
  };
}

/**
 * Worker thread entries bundled beside the handler of a function that parses documents, as
 * `<name>.js`: the engines start them from the handler's folder (`startModuleWorker`).
 */
export const ENGINE_WORKERS = [
  'functions/engines/pdf/pdf-worker.ts',
  'functions/engines/office/office-worker.ts',
] as const;

/** Bundling hooks that ship the engine packages and the engines' workers next to the handler. */
function engineHooks() {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string): string[] => {
      const q = (path: string) => `"${path}"`;
      const copies = packageCopies(ENGINE_PACKAGES, inputDir, outputDir);
      const esbuild = join(inputDir, 'node_modules', '.bin', 'esbuild');
      const workers = ENGINE_WORKERS.map((entry) =>
        [
          q(esbuild),
          q(join(inputDir, entry)),
          '--bundle',
          '--platform=node',
          '--format=esm',
          `--target=${BUNDLE_TARGET}`,
          '--minify',
          `--outfile=${q(join(outputDir, basename(entry, '.ts') + '.js'))}`,
          ...[...ENGINE_PACKAGES, ...LOCAL_ONLY_PACKAGES].map((name) => `--external:${name}`),
          `--banner:js=${q("import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);")}`,
        ].join(' '),
      );
      return [
        ...copies,
        // The worker is an ES module named .js: mark the bundle's folder as ESM.
        `echo '{"type":"module"}' > ${q(join(outputDir, 'package.json'))}`,
        `rm -rf ${UNUSED_PACKAGE_PARTS.map((part) => q(join(outputDir, part))).join(' ')}`,
        `find ${q(join(outputDir, 'node_modules'))} -name '*.map' -delete`,
        ...workers,
      ];
    },
  };
}
