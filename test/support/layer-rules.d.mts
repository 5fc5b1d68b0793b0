export declare const layerRules: {
  layer: string
  files: string[]
  dir: string
  forbidden: { patterns: string[]; targets: RegExp[]; message: string }[]
}[]
