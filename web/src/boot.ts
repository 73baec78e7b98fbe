// The page's first script (index.html): starts the core before the UI's bundle has loaded.
import { pageCoreConnection } from './worker/page_core';

pageCoreConnection();
