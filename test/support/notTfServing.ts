/** Answers a smoke test meets that are not TF Serving's, for the tests of `tfs smoke`. */
import * as http from "http";

/**
 * Answers 200 with a JSON list holding `mib` MiB of whitespace, written as fast as the client
 * reads it: what a wrong URL (a file server, a proxy's error page gone wild) may send back.
 */
export function hugeAnswer(mib: number): http.RequestListener {
    const chunk = Buffer.alloc(2 ** 20, " ");
    return (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write("{\"model_version_status\": [");
        let sent = 0;
        const more = () => {
            while (sent < mib && res.write(chunk)) {
                sent++;
            }
            if (sent < mib) {
                res.once("drain", more);
            } else {
                res.end("]}");
            }
        };
        more();
    };
}
