import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Prints the size of each Lambda function's bundle in a synthesized cloud assembly (`cdk.out`,
 * or the directory given as the first argument): the handler module (`index.mjs`, minified) and
 * the whole asset with shipped packages. Run by `npm run synth`.
 */
const out = process.argv[2] ?? 'cdk.out';
const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
  artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
};

const sizeOf = (path: string): number => {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
};
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(2)} MB`.padStart(10);

for (const artifact of Object.values(manifest.artifacts)) {
  const templateFile = artifact.properties?.templateFile;
  if (artifact.type !== 'aws:cloudformation:stack' || !templateFile) continue;
  const template = JSON.parse(readFileSync(join(out, templateFile), 'utf8')) as {
    Resources: Record<
      string,
      { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> }
    >;
  };
  console.log(`${templateFile}: function bundles (handler module, whole asset)`);
  for (const [id, resource] of Object.entries(template.Resources)) {
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (resource.Type !== 'AWS::Lambda::Function' || typeof assetPath !== 'string') continue;
    const dir = join(out, assetPath);
    const handler = join(dir, 'index.mjs');
    const handlerSize = existsSync(handler) ? sizeOf(handler) : sizeOf(dir);
    console.log(`  ${id.padEnd(48)} ${mb(handlerSize)} ${mb(sizeOf(dir))}`);
  }
}
