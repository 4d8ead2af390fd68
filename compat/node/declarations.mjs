// Emit the `.d.ts` of each TypeScript source file, one file at a time and
// without type-checking (TypeScript's `transpileDeclaration`, what JSR's
// "fast check" does when it builds a package for npm: every export has an
// explicit type, so no inference across files is needed).
// Usage: node declarations.mjs <pairs.json>, a JSON list of [source, output]
// paths. Prints how many declarations it wrote.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import ts from "typescript";

const pairs = JSON.parse(readFileSync(process.argv[2], "utf8"));
for (const [source, output] of pairs) {
  const { outputText } = ts.transpileDeclaration(readFileSync(source, "utf8"), {
    fileName: source,
    compilerOptions: {
      allowImportingTsExtensions: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      strict: true,
    },
  });
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, outputText);
}
console.log(`declarations: ${pairs.length} files`);
