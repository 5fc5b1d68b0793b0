// The egress proxy (SPEC §6.5): per live resource a proxy on a unix socket, domain rules, pinned
// names and the address ranges refused by default. The composition root builds it; providers see
// only the core's `EgressPort`.
export { ipLiteral, refusedRange } from './address-ranges'
export { egressGate, type EgressAdmission, type EgressAgent, type EgressGate, type EgressGateOptions } from './egress-gate'
export { EgressProxy, type EgressProxyOptions } from './egress-proxy'
export { describeRule, hostMatches, ruleVerdict, type RuleVerdict } from './egress-rules'
