import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'
import { layerRules } from './test/support/layer-rules.mjs'

// The layer rule of SPEC §2 as import restrictions, one block per folder. The same table drives
// test/import-boundary.test.ts, which walks the real import graph.
const layerBlocks = layerRules.map((rule) => ({
  files: rule.files,
  // Tests wire real parts of several layers together; the rule is for what ships.
  ignores: ['**/*.test.ts', '**/*.test.tsx'],
  rules: {
    'no-restricted-imports': ['error', { patterns: rule.forbidden.flatMap((f) => f.patterns.map((regex) => ({ regex, message: f.message }))) }]
  }
}))

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-restricted-syntax': ['error', { selector: "MemberExpression[property.name='sendSync']", message: 'No sendSync: async IPC only.' }]
    }
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' }
  },
  {
    // The main build leaves out modules nothing is imported from (electron.vite.config.ts,
    // treeshake.moduleSideEffects: false), so no module may be imported for its side effects alone.
    files: ['src/main/**/*.ts', 'src/shared/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "MemberExpression[property.name='sendSync']", message: 'No sendSync: async IPC only.' },
        {
          selector: 'ImportDeclaration[specifiers.length=0][importKind!="type"]',
          message: 'No import for side effects alone: the main build drops modules nothing is imported from.'
        }
      ]
    }
  },
  ...layerBlocks
)
