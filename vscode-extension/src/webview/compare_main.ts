// The comparison webview: the web page's UI, with the VS Code host registered first.
import './compare_host';
import '../../../web/src/main';
