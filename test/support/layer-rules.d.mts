export declare const mainLayers: Record<string, { may: string[]; why: string }>
export declare const layerRules: {
  layer: string
  files: string[]
  dir: string
  forbidden: { patterns: string[]; targets: RegExp[]; message: string }[]
}[]
export declare const allowedTypeCycles: { within: RegExp; why: string }[]
