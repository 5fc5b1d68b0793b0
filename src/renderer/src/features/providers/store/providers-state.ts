import { create } from 'zustand'
import type { ProvidersClient } from './client'
import { createDoctorSlice, type DoctorSlice } from './doctor-slice'
import { createImagesSlice, type ImagesSlice } from './images-slice'
import { createOrderSlice, type OrderSlice } from './order-slice'
import { createProbeSlice, type ProbeSlice } from './probe-slice'

/** The providers feature's state: the order, the probes, the Docker images and the doctor's report. */
export type ProvidersState = OrderSlice & ProbeSlice & ImagesSlice & DoctorSlice

/** Builds the providers store from its slices over a client of the contract. */
export function createProvidersStore(client: ProvidersClient) {
  return create<ProvidersState>()((...a) => ({
    ...createOrderSlice(client)(...a),
    ...createProbeSlice(client)(...a),
    ...createImagesSlice(client)(...a),
    ...createDoctorSlice(client)(...a)
  }))
}
