import { create } from 'zustand'
import type { ProvidersClient } from './client'
import { createImagesSlice, type ImagesSlice } from './images-slice'
import { createOrderSlice, type OrderSlice } from './order-slice'
import { createProbeSlice, type ProbeSlice } from './probe-slice'

/** The providers feature's state: the order, the probes and the Docker images. */
export type ProvidersState = OrderSlice & ProbeSlice & ImagesSlice

/** Builds the providers store from its slices over a client of the contract. */
export function createProvidersStore(client: ProvidersClient) {
  return create<ProvidersState>()((...a) => ({
    ...createOrderSlice(client)(...a),
    ...createProbeSlice(client)(...a),
    ...createImagesSlice(client)(...a)
  }))
}
