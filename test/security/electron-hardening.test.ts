import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { consoleCsp } from '../../src/main/app/web-console-server'

// A static scan of the desktop shell, by the TypeScript compiler's syntax tree (never by text
// patterns): the settings Electronegativity checks for (context isolation, sandbox, node
// integration, web security, webviews, insecure content, Blink features), the window-open,
// navigation, webview and permission handlers, what the preload exposes, no eval anywhere in the
// app, and the CSP the renderer runs under (no unsafe-eval, no inline script, no objects).

const root = join(__dirname, '..', '..')
const sourceFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : []
  })
const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
const app = sourceFiles(join(root, 'src')).map(parse)

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node)
  node.forEachChild((child) => walk(child, visit))
}
function all<T extends ts.Node>(files: readonly ts.SourceFile[], pick: (node: ts.Node) => node is T): T[] {
  const found: T[] = []
  for (const file of files) walk(file, (node) => pick(node) && found.push(node))
  return found
}
const where = (node: ts.Node) =>
  `${relative(root, node.getSourceFile().fileName)}:${node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1}`
const propertyOf = (object: ts.ObjectLiteralExpression, name: string) =>
  object.properties.find((property): property is ts.PropertyAssignment => ts.isPropertyAssignment(property) && property.name.getText() === name)
const callsTo = (files: readonly ts.SourceFile[], method: string) =>
  all(
    files,
    (node): node is ts.CallExpression => ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === method
  )
/** The expressions a function literal can return (its body, or its return statements). */
function returnsOf(fn: ts.Expression): ts.Expression[] {
  if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) return []
  if (!ts.isBlock(fn.body)) return [fn.body]
  return all(
    [fn.getSourceFile()],
    (node): node is ts.ReturnStatement => ts.isReturnStatement(node) && node.pos >= fn.body.pos && node.end <= fn.body.end
  ).flatMap((statement) => (statement.expression ? [statement.expression] : []))
}

describe('Electron hardening (static scan of the desktop shell)', () => {
  const windows = all(app, (node): node is ts.NewExpression => ts.isNewExpression(node) && node.expression.getText() === 'BrowserWindow')

  it('every BrowserWindow isolates its context, runs sandboxed, without node, with web security, and never enables risky features', () => {
    expect(windows.length).toBeGreaterThan(0)
    for (const window of windows) {
      const options = window.arguments?.[0]
      expect(options && ts.isObjectLiteralExpression(options), where(window)).toBe(true)
      const preferences = propertyOf(options as ts.ObjectLiteralExpression, 'webPreferences')?.initializer
      expect(preferences && ts.isObjectLiteralExpression(preferences), `${where(window)} has literal webPreferences`).toBe(true)
      const value = (name: string) => propertyOf(preferences as ts.ObjectLiteralExpression, name)?.initializer.getText()
      expect(
        {
          contextIsolation: value('contextIsolation'),
          sandbox: value('sandbox'),
          nodeIntegration: value('nodeIntegration'),
          webSecurity: value('webSecurity')
        },
        where(window)
      ).toEqual({
        contextIsolation: 'true',
        sandbox: 'true',
        nodeIntegration: 'false',
        webSecurity: 'true'
      })
      for (const risky of [
        'nodeIntegrationInWorker',
        'nodeIntegrationInSubFrames',
        'webviewTag',
        'allowRunningInsecureContent',
        'experimentalFeatures',
        'enableBlinkFeatures',
        'enableRemoteModule'
      ]) {
        expect(value(risky), `${where(window)}: ${risky}`).toBeUndefined()
      }
    }
  })

  it('new windows are denied, navigation away and webviews are prevented, in every file that makes a window', () => {
    for (const file of new Set(windows.map((window) => window.getSourceFile()))) {
      const openHandlers = callsTo([file], 'setWindowOpenHandler')
      expect(openHandlers.length, `${file.fileName} sets a window-open handler`).toBeGreaterThan(0)
      for (const call of openHandlers) {
        const returned = returnsOf(call.arguments[0]!)
        expect(returned.length, where(call)).toBeGreaterThan(0)
        for (const expression of returned) {
          expect(ts.isObjectLiteralExpression(expression) && propertyOf(expression, 'action')?.initializer.getText(), where(expression)).toBe("'deny'")
        }
      }
      const events = callsTo([file], 'on').map((call) => (ts.isStringLiteral(call.arguments[0]!) ? call.arguments[0].text : ''))
      expect(events, file.fileName).toEqual(expect.arrayContaining(['will-navigate', 'will-attach-webview']))
      const attach = callsTo([file], 'on').find((call) => ts.isStringLiteral(call.arguments[0]!) && call.arguments[0].text === 'will-attach-webview')!
      expect(
        callsTo([file], 'preventDefault').some((call) => call.pos >= attach.pos && call.end <= attach.end),
        'webviews are prevented'
      ).toBe(true)
    }
  })

  it('every permission request and check is denied', () => {
    const requests = callsTo(app, 'setPermissionRequestHandler')
    const checks = callsTo(app, 'setPermissionCheckHandler')
    expect(requests.length).toBeGreaterThan(0)
    expect(checks.length).toBeGreaterThan(0)
    for (const call of requests) {
      const handler = call.arguments[0]!
      const answers = all(
        [call.getSourceFile()],
        (node): node is ts.CallExpression =>
          ts.isCallExpression(node) && node.pos >= handler.pos && node.end <= handler.end && node.expression.getText() === 'callback'
      )
      expect(answers.length, where(call)).toBeGreaterThan(0)
      for (const answer of answers)
        expect(
          answer.arguments.map((argument) => argument.getText()),
          where(answer)
        ).toEqual(['false'])
    }
    for (const call of checks) for (const returned of returnsOf(call.arguments[0]!)) expect(returned.getText(), where(returned)).toBe('false')
  })

  it('the preload exposes one object, window.airlock, and never ipcRenderer itself', () => {
    const preload = app.filter((file) => relative(root, file.fileName).startsWith(join('src', 'preload')))
    const exposures = callsTo(preload, 'exposeInMainWorld')
    expect(exposures.map((call) => call.arguments[0]!.getText())).toEqual(["'airlock'"])
    for (const call of exposures) expect(call.arguments[1]!.getText()).not.toMatch(/^ipcRenderer$/)
    // ipcRenderer is used only as the callee of invoke/on/removeListener inside the bridge's functions.
    const uses = all(preload, (node): node is ts.Identifier => ts.isIdentifier(node) && node.text === 'ipcRenderer' && !ts.isImportSpecifier(node.parent))
    for (const use of uses) {
      expect(
        ts.isPropertyAccessExpression(use.parent) && use.parent.expression === use && ['invoke', 'on', 'removeListener'].includes(use.parent.name.text),
        where(use)
      ).toBe(true)
    }
  })

  it('no eval, no new Function, no @electron/remote anywhere in the app', () => {
    const evals = all(
      app,
      (node): node is ts.CallExpression => ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'eval'
    )
    const functions = all(app, (node): node is ts.NewExpression => ts.isNewExpression(node) && node.expression.getText() === 'Function')
    const remote = all(
      app,
      (node): node is ts.StringLiteral =>
        ts.isStringLiteral(node) && ts.isImportDeclaration(node.parent) && /^(@electron\/remote|electron\/remote)$/.test(node.text)
    )
    expect([...evals, ...functions, ...remote].map(where)).toEqual([])
  })

  it('the renderer runs under a CSP without unsafe-eval or inline script, the same in Electron and the web console', () => {
    const html = readFileSync(join(root, 'src', 'renderer', 'index.html'), 'utf8')
    const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1]
    expect(meta).toBeDefined()
    const directives = (csp: string) =>
      new Map(
        csp
          .split(';')
          .map((part) => part.trim().split(/\s+/))
          .filter((words) => words[0])
          .map(([name, ...values]) => [name!, values])
      )
    for (const csp of [meta!, consoleCsp]) {
      const policy = directives(csp)
      expect(policy.get('default-src')).toEqual(["'self'"])
      expect(policy.get('script-src')).toEqual(["'self'"])
      expect(policy.get('object-src')).toEqual(["'none'"])
      expect(policy.get('base-uri')).toEqual(["'none'"])
      for (const values of policy.values()) expect(values).not.toContain("'unsafe-eval'")
    }
    // The web console adds what a meta tag cannot carry (frame-ancestors); otherwise they agree.
    const web = directives(consoleCsp)
    web.delete('frame-ancestors')
    expect(Object.fromEntries(web)).toEqual(Object.fromEntries(directives(meta!)))
  })
})
