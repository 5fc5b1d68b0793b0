// `browse` (SPEC §5.3): read a web page in the session's browser, under the agent's network policy.
export { browseAction, browseInputSchema, browserRequirement, type BrowseData, type BrowseInput } from './browse-action'
export { screenshotName, writeScreenshot } from './screenshot-artifact'
