import type { HistoryStatus } from '@shared/ipc/history'
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'
import { useShallow } from 'zustand/react/shallow'
import { ErrorBanner, Loading, SegmentedControl } from '../../../ui'
import { formatDuration, statusLabel } from '../../../lib/call-outcome'
import { usageRanges, usageRows, usageTotals, usedStatuses } from '../lib/usage'
import { useAgentsStore } from '../store/agents-store'

// One colour per status from the theme's tokens (statuses sharing a badge tone still differ here); the legend names each.
const statusColour: Record<HistoryStatus, string> = {
  success: 'var(--ok-fg)',
  error: 'var(--bad-fg)',
  blocked: 'var(--warn-fg)',
  approval_required: 'var(--info-fg)',
  timed_out: 'var(--brand-2)',
  cancelled: 'var(--neutral-fg)',
  interrupted: 'var(--bad-line)',
  running: 'var(--accent)',
  waiting_approval: 'var(--warn-line)'
}

const axisTick = { fill: 'var(--muted)', fontSize: 11 }

const rangeOptions = usageRanges.map((r) => ({ value: r.id, label: r.label, testId: `agent-usage-range-${r.id}` }))

/** Calls per hour stacked by status, and duration percentiles of finished calls, over a chosen window (from `history.usage`). */
export function ChartAgentUsage() {
  const { usage, range, setRange, refresh } = useAgentsStore(
    useShallow((state) => ({ usage: state.usage, range: state.usageRange, setRange: state.setUsageRange, refresh: state.refreshCalls }))
  )
  const value = usage.value
  const rows = value ? usageRows(value) : []
  const totals = value ? usageTotals(value) : undefined
  const statuses = value ? usedStatuses(value) : []
  const days = range !== '24h'
  const rangeLabel = usageRanges.find((r) => r.id === range)!.label
  const summary = totals ? `${totals.total} calls in the last ${rangeLabel}${statuses.map((s) => `, ${totals.byStatus[s]} ${statusLabel(s)}`).join('')}` : ''
  const durations = value
    ? [
        { name: 'p50', ms: value.durations.p50 },
        { name: 'p90', ms: value.durations.p90 },
        { name: 'p99', ms: value.durations.p99 }
      ]
    : []

  return (
    <section className="ag-card ag-usage" aria-labelledby="ag-usage-title" data-testid="chart-agent-usage">
      <header className="ag-card-head">
        <h3 id="ag-usage-title">Usage</h3>
        <SegmentedControl label="Usage window" options={rangeOptions} value={range} onChange={setRange} />
      </header>
      {usage.status === 'error' && <ErrorBanner message={usage.error!.message} onRetry={() => void refresh()} />}
      {!value && usage.status !== 'error' && <Loading label="Loading usage…" />}
      {value && totals && (
        <>
          <ul className="ag-legend" data-testid="agent-usage-totals">
            <li className="ag-legend-total">
              <strong>{totals.total.toLocaleString()}</strong> {totals.total === 1 ? 'call' : 'calls'} · last {rangeLabel}
            </li>
            {statuses.map((status) => (
              <li key={status}>
                <span className="ag-swatch" style={{ background: statusColour[status] }} aria-hidden="true" />
                {statusLabel(status)} <strong>{totals.byStatus[status]}</strong>
              </li>
            ))}
          </ul>
          <div className="ag-usage-body">
            <div className="ag-usage-chart" role="img" aria-label={`Calls per hour: ${summary}`}>
              <ResponsiveContainer width="100%" height={170}>
                <BarChart data={rows} margin={{ top: 6, right: 4, bottom: 0, left: 0 }} barCategoryGap={rows.length > 48 ? 0 : 2} accessibilityLayer={false}>
                  <CartesianGrid vertical={false} stroke="var(--line)" />
                  <XAxis
                    dataKey="hour"
                    tick={axisTick}
                    tickLine={false}
                    axisLine={{ stroke: 'var(--line-strong)' }}
                    minTickGap={28}
                    tickFormatter={(hour: number) => hourLabel(hour, days)}
                  />
                  <YAxis allowDecimals={false} tick={axisTick} tickLine={false} axisLine={false} width={40} />
                  <Tooltip
                    cursor={{ fill: 'var(--row-hover)' }}
                    contentStyle={{ background: 'var(--panel)', border: '1px solid var(--line-strong)', borderRadius: 6, fontSize: 12, color: 'var(--text)' }}
                    labelStyle={{ color: 'var(--muted)', marginBottom: 4 }}
                    labelFormatter={(hour) => new Date(Number(hour)).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })}
                    formatter={(count, name) => [count as number, statusLabel(name as HistoryStatus)]}
                  />
                  {statuses.map((status) => (
                    <Bar key={status} dataKey={status} stackId="calls" fill={statusColour[status]} isAnimationActive={false} />
                  ))}
                </BarChart>
              </ResponsiveContainer>
              {totals.total === 0 && <p className="ag-usage-none">No calls in the last {rangeLabel}.</p>}
            </div>
            <div className="ag-durations" data-testid="agent-usage-durations">
              <h4>Duration</h4>
              <p className="ag-muted ag-small">
                {value.durations.count > 0 ? `percentiles of ${value.durations.count.toLocaleString()} finished calls` : 'No finished calls yet.'}
              </p>
              {value.durations.count > 0 && (
                <div role="img" aria-label={`Duration percentiles: ${durations.map((d) => `${d.name} ${formatDuration(d.ms)}`).join(', ')}`}>
                  <ResponsiveContainer width="100%" height={84}>
                    <BarChart
                      data={durations}
                      layout="vertical"
                      margin={{ top: 0, right: 0, bottom: 0, left: 0 }}
                      barCategoryGap={5}
                      accessibilityLayer={false}
                    >
                      <XAxis type="number" hide domain={[0, 'dataMax']} />
                      <YAxis yAxisId="name" type="category" dataKey="name" tick={axisTick} tickLine={false} axisLine={false} width={30} />
                      <YAxis
                        yAxisId="value"
                        orientation="right"
                        type="category"
                        dataKey="name"
                        tickLine={false}
                        axisLine={false}
                        width={62}
                        tick={(tick: { x: number | string; y: number | string; payload: { value: string } }) => (
                          <text
                            x={Number(tick.x) + 6}
                            y={tick.y}
                            dy={4}
                            fill="var(--text)"
                            fontSize={12}
                            fontWeight={600}
                            data-testid={`agent-usage-${tick.payload.value}`}
                          >
                            {formatDuration(durations.find((d) => d.name === tick.payload.value)?.ms)}
                          </text>
                        )}
                      />
                      <Bar yAxisId="name" dataKey="ms" isAnimationActive={false} background={{ fill: 'var(--panel-2)' }} radius={2}>
                        {durations.map((d) => (
                          <Cell key={d.name} fill="var(--accent)" />
                        ))}
                      </Bar>
                    </BarChart>
                  </ResponsiveContainer>
                </div>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  )
}

function hourLabel(hour: number, days: boolean): string {
  const date = new Date(hour)
  const hh = String(date.getHours()).padStart(2, '0')
  return days ? `${date.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${hh}h` : `${hh}:00`
}
