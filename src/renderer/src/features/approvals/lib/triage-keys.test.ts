import { describe, expect, it } from 'vitest'
import { triageActionOf, type KeyPress } from './triage-keys'

describe('triage keys', () => {
  const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({ key, ctrlKey: false, metaKey: false, altKey: false, target: null, ...extra })
  const element = (tagName: string, attributes: Record<string, string> = {}) =>
    ({ tagName, getAttribute: (name: string) => attributes[name] ?? null }) as unknown as EventTarget
  const free = { dialogOpen: false }

  it('maps the triage keys', () => {
    expect(['j', 'k', 'a', 's', 'r', 'd', '?'].map((key) => triageActionOf(press(key), free))).toEqual([
      'next',
      'previous',
      'approve',
      'session',
      'rule',
      'deny',
      'help'
    ])
    expect(['x', 'X', 'Escape'].map((key) => triageActionOf(press(key), free))).toEqual(['check', 'checkAgent', 'clear'])
    expect(triageActionOf(press('q'), free)).toBeUndefined()
    // Escape stays a focused tab's or menu's own.
    expect(triageActionOf(press('Escape', { target: element('BUTTON', { role: 'tab' }) }), free)).toBeUndefined()
  })

  it('ignores keys while typing, in a dialog, with modifiers, and held-down deciding keys', () => {
    expect(triageActionOf(press('a', { target: element('INPUT') }), free)).toBeUndefined()
    expect(triageActionOf(press('j', { target: element('TEXTAREA') }), free)).toBeUndefined()
    expect(triageActionOf(press('a', { target: element('DIV', { role: 'textbox' }) }), free)).toBeUndefined()
    expect(triageActionOf(press('a', { target: element('INPUT', { type: 'checkbox' }) }), free)).toBe('approve')
    expect(triageActionOf(press('a'), { dialogOpen: true })).toBeUndefined()
    expect(triageActionOf(press('r', { ctrlKey: true }), free)).toBeUndefined()
    expect(triageActionOf(press('r', { metaKey: true }), free)).toBeUndefined()
    expect(triageActionOf(press('a', { repeat: true }), free)).toBeUndefined()
    expect(triageActionOf(press('j', { repeat: true }), free)).toBe('next')
  })

  it('moves with arrows only where the focus does not use them', () => {
    expect(triageActionOf(press('ArrowDown', { target: element('BODY') }), free)).toBe('next')
    expect(triageActionOf(press('ArrowDown', { target: element('BUTTON') }), free)).toBe('next')
    expect(triageActionOf(press('ArrowDown', { target: element('BUTTON', { role: 'tab' }) }), free)).toBeUndefined()
    expect(triageActionOf(press('ArrowUp', { target: element('DIV') }), free)).toBeUndefined()
  })
})
