import { create } from 'zustand'
import { on, type HostFeed } from '../../../lib/follow-host'
import { orderSettingKey, type ProvidersClient } from './client'
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

/**
 * How the providers store follows main: provisioning progress and doctor runs as pushed, the order
 * when its setting changes (another console, the CLI), and the order and the doctor's report read
 * again after a reconnect or another process's writes, once the view has loaded.
 */
export function providersFeed(client: ProvidersClient): HostFeed<ProvidersState> {
  return {
    events: [
      on(client.providers.onImageProgress, (state, event) => state.receiveProgress(event)),
      on(client.doctor.onChanged, (state, change) => state.doctorChanged(change)),
      on(client.settings.onChanged, (state, view) => {
        if (view.key === orderSettingKey) state.applyOrderSetting(view.value)
      })
    ],
    reload(state) {
      if (state.orderStatus === 'idle') return
      void state.loadOrder()
      void state.loadDoctor()
    }
  }
}
