/**
 * tests/cross/test_loader.mjs - tests of scripts/loaders/dmlref_vectors.mjs, the strict
 * JavaScript reader of dmlref golden vectors (vectors/FORMAT.md).
 *
 *   node tests/cross/test_loader.mjs [VECTOR_DIR]
 *
 * Without an argument it tests the module on built-in cases: XXH3-64 against
 * digests computed with the C library (libxxhash 0.8.1), every element
 * encoding of the 11 dtypes, the generators against SplitMix64 values
 * computed in C, buffer layout (strides, padding, broadcast), output checks
 * (a flipped bit, null, any_of, xxh3), permitted variants (format 2), and
 * the parser's strictness. With
 * VECTOR_DIR it also loads every *.json vector below it, checks that the
 * expected outputs pass the check and that a mutated copy fails, and checks
 * the folder's MANIFEST when there is one. Prints "N passed, N failed" last;
 * the exit status is 1 when anything failed.
 *
 * The module tested is the repository's, or the one DMLREF_VECTORS_MODULE
 * names as this file would import it: tests/cross/test_packaging.sh copies this
 * file into a project where npm installed the package and sets it to the
 * package's name, 'dmlref-vectors'.
 */
import {readFileSync, readdirSync, statSync, existsSync, mkdtempSync, writeFileSync, rmSync} from 'node:fs';
import {spawnSync} from 'node:child_process';
import {tmpdir} from 'node:os';
import {dirname, join, relative} from 'node:path';
import {fileURLToPath} from 'node:url';

const moduleUrl = import.meta.resolve(process.env.DMLREF_VECTORS_MODULE
                                       || '../../scripts/loaders/dmlref_vectors.mjs');
const M = await import(moduleUrl);
let passed = 0, failed = 0;
const verbose = !!process.env.VERBOSE;

function check(name, cond, detail = '') {
    if (cond) {
        passed++;
        if (verbose) console.log(`ok   ${name}`);
    } else {
        failed++;
        console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`);
    }
}
function equal(name, got, want) {
    const same = typeof got === typeof want && (Object.is(got, want) || got === want);
    check(name, same, `got ${show(got)}, expected ${show(want)}`);
}
function show(x) {
    if (typeof x === 'bigint') return `${x}n (0x${x.toString(16)})`;
    if (typeof x === 'number') return `${Object.is(x, -0) ? '-0' : x} (0x${(x >>> 0).toString(16)})`;
    if (ArrayBuffer.isView(x)) return `[${Array.from(x, (v) => v.toString(16)).join(', ')}]`;
    return JSON.stringify(x);
}
function arraysEqual(name, got, want) {
    const a = Array.from(got), b = Array.from(want);
    const bad = a.length !== b.length ? -2 : a.findIndex((v, i) => v !== b[i]);
    check(name, bad === -1, bad === -2 ? `lengths ${a.length} and ${b.length}`
        : `element ${bad}: got ${show(a[bad])}, expected ${show(b[bad])}`);
}
/** f must throw an Error whose message matches every regex. */
function throws(name, f, ...res) {
    try {
        f();
    } catch (e) {
        const bad = res.find((re) => !re.test(e.message));
        check(name, !bad, bad ? `message ${JSON.stringify(e.message)} does not match ${bad}` : '');
        return e;
    }
    check(name, false, 'did not throw');
    return null;
}
function noThrow(name, f) {
    try {
        const r = f();
        check(name, true);
        return r;
    } catch (e) {
        check(name, false, e.message);
        return undefined;
    }
}
function section(title) { if (verbose) console.log(`-- ${title}`); }

/* ------------------------------------------------------------------------ */
section('XXH3-64');

/* (length, pattern) -> XXH3_64bits() of libxxhash 0.8.1 on the bytes fill()
 * makes; computed once with a throwaway C program. */
const XXH3_TABLE = `
0 1 2d06800538d394c2;1 1 70cb637dde9fbd5b;2 1 1f34341854a03698;3 1 ac193ad26afd1deb
4 1 aed0e3aebe40a455;5 1 4b155bcd8aba6a27;6 1 1a2e86390c124e4a;7 1 9b8a78e6b748443f
8 1 f843786ae9ae7a12;9 1 b94b94dc6142f7c3;10 1 f23f96be3f19f87f;11 1 e6cafd606c81eb46
12 1 bb99374080dafd77;13 1 36feb836c3f71132;14 1 fd6903d4b29551ce;15 1 0c6112155002ffec
16 1 022428278f74fa68;17 1 56f47ad06cf77bad;18 1 bdbbfb798b75e42a;19 1 2a999daf34a1cb53
20 1 1efeb8f1582c2a76;21 1 9ad131f407656e79;22 1 8bfc01f3b7c2ea36;23 1 88637a92deb4ddef
24 1 568cde0e359510d7;25 1 e6f529c3974d25b0;26 1 8fdf7fde2ac4c92b;27 1 78716affb7ee4933
28 1 61f9321d082fb577;29 1 0ad75b9c1fed1259;30 1 884089c90849a3aa;31 1 00a9c85d5812e834
32 1 5e9fd8559338d1a6;33 1 0f6c331daeafd3f6;34 1 132da27e6ce2e641;35 1 57264b6f0e69587e
36 1 0d226726b82ed03a;37 1 e8f7fde13bdcb756;38 1 e1f1b2ac4d2105e6;39 1 9bfc7536f5d1e273
40 1 702d1cbfbcc5e8ad;41 1 452797def7a8e9b1;42 1 e60d05497653c649;43 1 0d74911cb4c79dec
44 1 1f8a5770de7dc328;45 1 fc6280dfebe04c9a;46 1 9a40f402a351889d;47 1 8243b54caee36587
48 1 95529c9812a81ea3;49 1 a9980ba4c227b738;50 1 b1d38e0c08d0a270;51 1 f6fe0d7a5ea0aa42
52 1 6144c38780214f8f;53 1 21ab21e2a9b9cab8;54 1 35f0f1315b9db8f4;55 1 194ab406502d3fad
56 1 f85d2782276fcb08;57 1 fb1bf0f85fdfe418;58 1 05581caedd420c45;59 1 f2015eb93232c6fc
60 1 022e92c7d5c0a700;61 1 c04ff09699551f05;62 1 5c9aa9ee7500f1f7;63 1 7ea44c2947e615b3
64 1 a96a48d8f9bed731;65 1 e2ac1042446527f3;66 1 7e3a81adde7d26af;67 1 a4b0271451a867f1
68 1 fd7f49c97aee5f8f;69 1 b249e21d901bca13;70 1 5cae88e5e11aa1bb;71 1 451443ea00025e5c
72 1 290c0babac0013ad;73 1 d06698a28c9cb5aa;74 1 4b28611085bd113c;75 1 a0118a3b0b958e4b
76 1 e5b897bd1a1756f0;77 1 4234fbfd03cf6535;78 1 4b7b765b5f8194ea;79 1 50f2f92082508ec9
80 1 209728a6567c9bad;81 1 0e32a25e98ea1a99;82 1 f071d9d518ddcf26;83 1 44efc63069754f70
84 1 68fcce2ad4519da7;85 1 8a9323697e0b7586;86 1 533849ccb4515cdc;87 1 e2e831be75fed5b5
88 1 fbfdf9a5d254fc91;89 1 f1f1957182430cb2;90 1 6b40fcad3070636e;91 1 e606fae8769e68d7
92 1 b5c35b3fb2e8561a;93 1 833974fc161360a4;94 1 bdb08d756d808d18;95 1 bfd58614cf6d6afc
96 1 c170075d41cfce6c;97 1 8febc27aa4282b40;98 1 89cd5bf06882a4e4;99 1 8ce142a71bbf165c
100 1 3d3f07b827d39073;101 1 c970a31ab60d15d6;102 1 c95e4dd61a80830b;103 1 1ade545f5cc66395
104 1 d595735858577a4f;105 1 d224d8b7704bc8fb;106 1 5ad664879baf5182;107 1 c0666c5081c2c79c
108 1 f02916c8b521749c;109 1 34824ffc896d5e8a;110 1 780eca9a4d5e610c;111 1 cb5a1880a4f87927
112 1 8655d104db55cb78;113 1 b4f4642d0b679217;114 1 654d9fd1702a904d;115 1 75ca711e138f43a7
116 1 83f8bbaf7f22f5c3;117 1 275a6bcf4ef8ef10;118 1 50381d95dccd6062;119 1 c7aa12c94e2f1664
120 1 451e16c201c87587;121 1 29fc07715ecff9a2;122 1 62b86f8415cdb256;123 1 098431b5e9576bb5
124 1 fd835394d79c68ef;125 1 ec4c8c21b9346b91;126 1 3d02a7fc7af07c50;127 1 1493c1c002c22324
128 1 6ae0c507ec743ac8;129 1 2c409f286f9a6a9b;130 1 5f3ca52d93b88195;131 1 768f038f21cf8734
132 1 13faff117cb0b87e;133 1 7d9039ad6f09a567;134 1 40c1a7f09c3ac8d7;135 1 f282f04ea16252d5
136 1 5915889af9cee8df;137 1 b52f8fea8ec40d58;138 1 a82cab183e9be656;139 1 679a0f2e623eb2d1
140 1 e6bdba11862390b1;141 1 a1342edc01076657;142 1 c664cbbd73ccd8ce;143 1 96efd9fc0be514fe
144 1 0049935441d4ce96;145 1 168c8a0054f95e86;146 1 ac853c76e2d63f4f;147 1 5abc29d339ee769f
148 1 160acfcefd9fefef;149 1 6939006909ae6067;150 1 fe305aba10ed3958;151 1 9f98dd34e28f6414
152 1 b4a67f4aea9b1043;153 1 00630e7192c9a796;154 1 dc34927cb2a75332;155 1 151a9daa9a47975c
156 1 093d09864c79ac49;157 1 0234c9cd4e902bda;158 1 c8c414c4a42fc145;159 1 90ff34353593f197
160 1 4d2605324b54f338;161 1 57c6f76e43ef7448;162 1 1bae4ef4b93e355c;163 1 807d5808acb0cd37
164 1 b00ead1e9be318e3;165 1 0b10bc28af548015;166 1 364aa041a9bbfb00;167 1 3d93998deedf485c
168 1 5f61cd6a73c4bb47;169 1 1a95e9fc277dff58;170 1 da5c2c61d0dfe722;171 1 08e627030bf172fb
172 1 87f87d8afd9e9045;173 1 abaa35706e1cc539;174 1 10139cc86712a9dc;175 1 007d5487a4765b56
176 1 44096a86fa1f2b4b;177 1 76bff2e82d210434;178 1 089ebc8ff073fbaf;179 1 c30e8ce699bbc9e3
180 1 64361e7622fa1cfc;181 1 60c7b0864032ffbd;182 1 2986fdc202ec72c2;183 1 ed695ec8bcfce8bf
184 1 458953fa6f7375af;185 1 0f0719fbaebe3f1e;186 1 940c4401b16d89c9;187 1 491c8e5fab8d7cea
188 1 439de246de3d0bea;189 1 5a4d3bfa1d0f84fd;190 1 69c638bd5f0344d8;191 1 b7f1b8dfdd5fd9c6
192 1 cbb70d74541397da;193 1 858feb8ae70ac670;194 1 4713089d44b87462;195 1 b3bc371902f63b23
196 1 1cab831c075e4758;197 1 5e569ba8cb93c444;198 1 b78ea699edbdbf57;199 1 d04c9350a2bcd2d5
200 1 924915b9d64002b0;201 1 a5b88a80ca83aba1;202 1 48a5f62f4569f627;203 1 97894922a2581150
204 1 b93c1eb696661cc1;205 1 4882f19c32f4c747;206 1 ee25750abdde1bb8;207 1 b0c38feda4e9905d
208 1 b96eff3cb77930ab;209 1 a6378a086706d63a;210 1 f3fa0ba5f94e4354;211 1 513c670f66d2cb53
212 1 4a19fbf7b9b8a295;213 1 22bf54110e45fc54;214 1 413f84764eb432bc;215 1 1e668228a17a2aa8
216 1 62edd1854ada5989;217 1 3b87c7ddd3d73513;218 1 3f09dcfe59f1e80e;219 1 755d72237078cc7c
220 1 2ed901a606d3e690;221 1 36e215683be6d408;222 1 4e421a447c3b0738;223 1 89fc64a45bfefb7c
224 1 28814d65e05882a5;225 1 c811eabdf190b4b5;226 1 fa1f30c19e54fed9;227 1 adbc613a2b1ad13d
228 1 babde734497155f5;229 1 f31fdef100b8d997;230 1 2c92f5791bbf52ab;231 1 6988f193a3d9b89c
232 1 0047fd2cc52d4b99;233 1 83d8c9fe245016b5;234 1 a04e71bdc00b62f7;235 1 9b9896b4b17dd1c6
236 1 91823c00c954c6f3;237 1 caefa234bde77f9e;238 1 2c7f26814fec2147;239 1 6797b349a11e0d50
240 1 f6e395e9bcb0f784;241 1 424d7b0c528538c9;242 1 19567ae7580c26ba;243 1 1c41b23ff5d9551b
244 1 801464cadd59a7f8;245 1 5524b4341fcf58ce;246 1 42ef9993ff238fdf;247 1 44237eae854ac94a
248 1 dd8883e9dd977fa2;249 1 60954bec96957c6a;250 1 5946102bc738090b;251 1 4802d5a9e8758e31
252 1 99f5dc4fbf1cbeed;253 1 f96448cc31b394b4;254 1 e85ff041ca0e5ce9;255 1 bb6716b38ea8f86e
256 1 035958a999b17492;257 1 76126b0e6435b7c8;258 1 916f511ef71ba367;259 1 908b59c8a5386004
260 1 de0a7dd1e730de9c;0 0 2d06800538d394c2;0 4 2d06800538d394c2;1 0 c44bdff4074eecdb
1 4 13e608bc156defed;2 0 d6645fc3051a9457;2 4 1c9074b93943b86c;3 0 5f4299fc161c9cbb
3 4 a9088dda485b481c;4 0 60dab036a58211f2;4 4 6d9253b16c8b1ed3;5 0 b075753a84ca0fbe
5 4 998620e10e3a4b37;7 0 0cd2084a62406b69;7 4 8e8291ad89127e2e;8 0 3a1c2d7c85af88f8
8 4 60539db630471163;9 0 e9612598145bb9dc;9 4 feff668361d723a8;12 0 5ace6a511c10894b
12 4 6829454be0cc3199;15 0 55ecedc2b87bb042;15 4 9ec169f4a98231c1;16 0 8355e3a6f61770db
16 4 b8c859b0f030b585;17 0 9ef341a99de37328;17 4 714a04408e79b80f;31 0 4f36db8e4df378fd
31 4 ed41ac283d0674b3;32 0 3523581fe96e4c05;32 4 19ff4ee1d6ba1a55;33 0 e68c56ba88991e58
33 4 3e44983ad21679c8;63 0 aaa5f0fb98a36ae8;63 4 1353bea3d0ebf7e1;64 0 6187eb9089b0ed55
64 4 287eb1fa9e4be2c1;65 0 6928c76ce90422d0;65 4 829218de4d798646;95 0 12733e48f5599bf8
95 4 ce51f0954dfbdb63;96 0 278a3e12ea046dfb;96 4 f084e7cfbc624743;97 0 e7220282dc4e14f4
97 4 1daa83271a8e7b7c;127 0 120b9787f8425f2f;127 4 998fa0631fd78d0b;128 0 85c6174c7ff4c46b
128 4 67425a03650261bf;129 0 ec7642b431ba3e5a;129 4 c664bf3311c6abc4;143 0 8222e885f060341d
143 4 8b313780705af3a7;144 0 028e1e35ff4c0a01;144 4 606a17fa700bb932;159 0 03ff9a757547fbc8
159 4 46e7dc05354efbb8;160 0 5bea9075ec9401b8;160 4 d70dea8de694b883;200 0 f42a8864feaf0703
200 4 746cd0025327bf5b;239 0 972b14e3c46f214b;239 4 1d861931c1f3cafa;240 0 375a384d957fe865
240 4 64556dc6b462a6cf;241 0 02e8cd95421c6d02;241 1 424d7b0c528538c9;241 4 8beadd3a8874fe17
255 0 b85fd37a0a050e63;255 1 bb6716b38ea8f86e;255 4 b67b6637a76e6c39;256 0 9408a4433b952d71
256 1 035958a999b17492;256 4 3c38817f6d79c0da;257 0 d02c25704c5cee8a;257 1 76126b0e6435b7c8
257 4 22b10312bf305d6c;319 0 885f8567950ff1ec;319 1 62483d33a780e04b;319 4 40d27821d8d26436
320 0 bfc87c49d73ff872;320 1 f610b3bdcefd18b6;320 4 926ec0665b1eca1e;321 0 eaf198e82b834a58
321 1 c40c270f128bad40;321 4 d8073052a0ec92ec;511 0 5a59555ecf4e4b4c;511 1 e9f5ace646a69b3c
511 4 3eef63e2e4c93efa;512 0 1059105ad19bfa09;512 1 46594c833e48bb00;512 4 ba0c90e5a730b770
1023 0 26a0a01d1c925c06;1023 1 935a3c8f89b65a6c;1023 4 e578082440bd4159;1024 0 a870f92984398d22
1024 1 9759a10240621e04;1024 4 81f65811d7726199;1025 0 78c86e91ee939852;1025 1 284a601723707d90
1025 4 706fa6a17c0bc400;1087 0 1005d1f576f1fa5d;1087 1 0082fa73f6670af7;1087 4 d880a3c152a3cea1
1088 0 280d4e7cb6579eb6;1088 1 cc323e350060e432;1088 4 509ad46f07f2da56;1089 0 42f8401c93f322b4
1089 1 370a1cfdf267595b;1089 4 ccd59b03ec60a1ba;2047 0 ebb4a67fecb7bb5a;2047 1 81197978d1fdfd0f
2047 4 982c4efbf744a8ee;2048 0 dd420471ff96bd00;2048 1 dc8cae11910a4ca7;2048 4 22fcfa754b9a5189
2049 0 62dff343e7dbac9b;2049 1 a2b20dd59f8c53a0;2049 4 8d123753816af3ea;3071 0 36397954bed39e72
3071 1 ca35585c787ad29d;3071 4 cc6b1619788f109a;3072 0 a241e29820753683;3072 1 5fd804cb24cb1e62
3072 4 08519208603817bd;4096 0 eb4b7c3707879151;4096 1 3d6ac8e3bd571511;4096 4 a5244cd2b71b7adc
10000 0 3eee77440c4c3d08;10000 1 07e664e35e8d21d8;10000 4 eeb3c6cdba3fe460;65536 0 9a1db56d610a5516
65536 1 f09f35b4d6f621ff;65536 4 7de04d17c8eb6070;100003 0 cfcb6bf006e7e27f;100003 1 e879fe3af63b8cf1
100003 4 616d8c32a1019a18;1000000 0 4b96367f698ae779;1000000 1 efe15b41cd2cd019;1000000 4 aa479ed34f333e04
0 2 2d06800538d394c2;0 3 2d06800538d394c2;3 2 eb5d658bb22f286b;3 3 a79db4af6ec707da
8 2 c77b3abb6f87acd9;8 3 5111c7e47d784413;16 2 d0a66a65c7528968;16 3 722a202f07a4b313
128 2 093c29f27ecfcf21;128 3 da3383e7b4ff3ccd;240 2 053f07444f70da08;240 3 d0b19a475a28a93c
241 2 5c5b5d5d40c59ce3;241 3 aaa20fe63bbec0a5;1024 2 de5f15ab6daf7941;1024 3 91a9afd3ad9eb82e
1025 2 64ace6654784c523;1025 3 a1b6201683ab7dee;4097 2 4b6a68063958ec8b;4097 3 65ed412ed82af8fa
261 1 329c2a000e81032c;268 1 eaf27ed6edaa2f52;275 1 b887afb4f0e63c7a;282 1 e0961987282abf61
289 1 b3916189d075085d;296 1 1d0441c7d07bd9d9;303 1 04b3f3cb471d0e25;310 1 aaa641a557dd8051
317 1 e1f262cbcbf93f83;324 1 0ff552618abbc004;331 1 f7f4bd8a1d066397;338 1 3702dd599dadf35d
345 1 d5824df3b09b2bac;352 1 a306f2687e589e6f;359 1 cc59b468d0f75374;366 1 953aa71f77e55a44
373 1 b0c23f8f3388544a;380 1 2df74b05c15cfbe4;387 1 10e18be7a952bc61;394 1 996890c7f8de6541
401 1 02918c9e629a98f2;408 1 04d50931e9db7054;415 1 c78040a9706b4f2e;422 1 dec7454ce0d7d290
429 1 c2702b7d5446a660;436 1 2b61f840654df5e2;443 1 1a89abcac6355655;450 1 148aeb7e2da5f68f
457 1 1a368bf2a15a3f4e;464 1 9f3c971047f509e9;471 1 c4dd1742a16877e7;478 1 2ad452024fab7ba5
485 1 6c9a204c5485b9f0;492 1 6012c0280d352bca;499 1 cbe3167ffd754846;506 1 237dd782662b1b74
513 1 31162c8c47ec4b36;520 1 4bed8e63f97a5e6a;527 1 b6fd4d75ced3edf3;534 1 5d65256ef8898d25
541 1 93a1d1c3966bec24;548 1 3f0cb54cfe5ac8c5;555 1 d3a9f8a4d949eae6;562 1 692d25c70d11f698
569 1 911644f2f98d21c5;576 1 b0e599eb55ffbff0;583 1 67635379e37c34dc;590 1 4fdfa24096a1067d
597 1 dfbf6f9bb901857c`;

function fill(n, pat) {
    const b = new Uint8Array(n);
    let x = (Math.imul(n, 2654435761) + pat) >>> 0;
    for (let i = 0; i < n; i++) {
        switch (pat) {
        case 0: b[i] = i & 255; break;
        case 1: x = (Math.imul(x, 1103515245) + 12345) >>> 0; b[i] = x >>> 24; break;
        case 2: b[i] = 0; break;
        case 3: b[i] = 255; break;
        default: b[i] = (i * 7 + 3 + Math.floor(i / 256)) & 255;
        }
    }
    return b;
}
{
    let bad = 0, n = 0;
    const ranges = new Set();
    for (const line of XXH3_TABLE.trim().split('\n')) {
        for (const entry of line.trim().split(';').filter(Boolean)) {
            const [len, pat, digest] = entry.trim().split(' ');
            const got = M.xxh3Hex(fill(+len, +pat));
            n++;
            if (got !== digest) {
                bad++;
                if (bad <= 5) console.log(`     XXH3 length ${len} pattern ${pat}: got ${got}, libxxhash ${digest}`);
            }
            ranges.add(+len === 0 ? '0' : +len <= 16 ? '1-16' : +len <= 128 ? '17-128' : +len <= 240 ? '129-240' : 'long');
        }
    }
    check(`XXH3-64 equals libxxhash on ${n} inputs (lengths 0 to 1000000)`, bad === 0, `${bad} differ`);
    check('the XXH3 table covers every length class', ranges.size === 5, [...ranges].join(' '));
    equal('XXH3 of "" is 2d06800538d394c2', M.xxh3Hex(new Uint8Array(0)), '2d06800538d394c2');
    equal('xxh3() returns a BigInt', typeof M.xxh3(new Uint8Array(3)), 'bigint');
    equal('xxh3 of a typed array hashes its bytes',
          M.xxh3Hex(new Uint32Array([0x03020100, 0x07060504])), M.xxh3Hex(fill(8, 0)));
}

/* ------------------------------------------------------------------------ */
section('elements');

const J = (text) => M.parseJson(text);            /* a value as the strict parser gives it */
function dec(dtype, text) { return M.decodeElement(dtype, J(text)); }
function good(dtype, text, bits) { equal(`${dtype} ${text} -> ${show(bits)}`, dec(dtype, text), bits); }
function bad(dtype, text, re = /./) { throws(`${dtype} ${text} is refused`, () => dec(dtype, text), re); }

/* integers up to 32 bits */
good('INT8', '-128', 0x80); good('INT8', '127', 0x7f); good('INT8', '0', 0); good('INT8', '-1', 0xff);
bad('INT8', '128', /outside/); bad('INT8', '-129', /outside/);
good('UINT8', '255', 0xff); bad('UINT8', '256'); bad('UINT8', '-1');
good('INT16', '-32768', 0x8000); good('INT16', '32767', 0x7fff); bad('INT16', '32768');
good('UINT16', '65535', 0xffff); bad('UINT16', '65536');
good('INT32', '-2147483648', 0x80000000); good('INT32', '2147483647', 0x7fffffff); good('INT32', '-2', 0xfffffffe);
bad('INT32', '2147483648'); bad('INT32', '-2147483649');
good('UINT32', '4294967295', 0xffffffff); bad('UINT32', '4294967296'); bad('UINT32', '-1');
bad('INT32', '0.5', /JSON integer/); bad('INT32', '1.0', /JSON integer/); bad('INT32', '1e2', /JSON integer/);
bad('UINT8', '"5"'); bad('INT32', 'true'); bad('INT32', 'null'); bad('UINT16', '[1]');
/* 64-bit integers: JSON integers (exact here, whatever their size) and decimal strings */
good('INT64', '9007199254740992', 2n ** 53n); good('INT64', '-9007199254740992', 2n ** 64n - 2n ** 53n);
good('INT64', '"9007199254740993"', 2n ** 53n + 1n);
good('INT64', '9007199254740993', 2n ** 53n + 1n);         /* "readers accept either form for any value" */
good('INT64', '"-9223372036854775808"', 0x8000000000000000n);
good('INT64', '"9223372036854775807"', 0x7fffffffffffffffn);
good('INT64', '-1', 0xffffffffffffffffn); good('INT64', '"-1"', 0xffffffffffffffffn); good('INT64', '"0"', 0n);
bad('INT64', '"9223372036854775808"', /outside/); bad('INT64', '"-9223372036854775809"', /outside/);
good('UINT64', '"18446744073709551615"', 0xffffffffffffffffn); good('UINT64', '18446744073709551615', 0xffffffffffffffffn);
good('UINT64', '0', 0n); good('UINT64', '"12345"', 12345n);
bad('UINT64', '"18446744073709551616"', /outside/); bad('UINT64', '"-1"', /outside/); bad('UINT64', '-1');
bad('UINT64', '"007"', /decimal/); bad('UINT64', '"-0"', /decimal/); bad('INT64', '"-0"', /decimal/); bad('UINT64', '"1e3"'); bad('UINT64', '" 1"'); bad('UINT64', '"+1"');
bad('UINT64', '""'); bad('INT64', '"0x10"'); bad('INT64', '1.5'); bad('INT64', '1E3');
/* JS numbers from JSON.parse */
equal('INT64 from JSON.parse 2^53', M.decodeElement('INT64', JSON.parse('9007199254740992')), 2n ** 53n);
throws('INT64 JS number beyond 2^53 is refused (its value is lost)',
       () => M.decodeElement('UINT64', JSON.parse('18446744073709551615')), /2\^53/);
equal('UINT32 from JSON.parse', M.decodeElement('UINT32', 4294967295), 0xffffffff);
/* floats */
good('FLOAT32', '1.5', 0x3fc00000); good('FLOAT32', '1', 0x3f800000); good('FLOAT32', '-2', 0xc0000000);
good('FLOAT32', '-0.0', 0x80000000); good('FLOAT32', '0', 0);
good('FLOAT32', '0.10000000149011612', 0x3dcccccd);
good('FLOAT32', '3.4028234663852886e38', 0x7f7fffff); good('FLOAT32', '1.401298464324817e-45', 1);
good('FLOAT32', '1.1754942106924411e-38', 0x007fffff); good('FLOAT32', '1E0', 0x3f800000);
good('FLOAT32', '"inf"', 0x7f800000); good('FLOAT32', '"-inf"', 0xff800000); good('FLOAT32', '"nan"', 0x7fc00000);
good('FLOAT32', '"0x7fc00001"', 0x7fc00001); good('FLOAT32', '"0xffc00000"', 0xffc00000);
good('FLOAT32', '"0x7f800001"', 0x7f800001); good('FLOAT32', '"0xffffffff"', 0xffffffff);
bad('FLOAT32', '1.1', /not exactly representable as FLOAT32/); bad('FLOAT32', '0.1', /FLOAT32/);
bad('FLOAT32', '1e-45', /FLOAT32/); bad('FLOAT32', '3.4028235677973366e38', /FLOAT32/);
bad('FLOAT32', '1e400', /binary64/); bad('FLOAT32', '"Infinity"'); bad('FLOAT32', '"NaN"'); bad('FLOAT32', '"-nan"');
bad('FLOAT32', '"0x7f800000"', /not a FLOAT32 NaN/); bad('FLOAT32', '"0x3f800000"', /not a FLOAT32 NaN/);
bad('FLOAT32', '"0x7FC00001"'); bad('FLOAT32', '"0x7fc0001"', /8 hex digits/); bad('FLOAT32', '"0x7e00"', /8 hex/);
bad('FLOAT32', 'null'); bad('FLOAT32', '{"any_of": [1]}'); bad('FLOAT32', '"1.5"');
good('FLOAT16', '65504', 0x7bff); good('FLOAT16', '-65504', 0xfbff); good('FLOAT16', '1', 0x3c00);
good('FLOAT16', '1.0009765625', 0x3c01); good('FLOAT16', '0.333251953125', 0x3555);
good('FLOAT16', '6.103515625e-05', 0x0400); good('FLOAT16', '6.097555160522461e-05', 0x03ff);
good('FLOAT16', '5.960464477539063e-8', 0x0001); good('FLOAT16', '-5.960464477539063e-8', 0x8001);
good('FLOAT16', '-0.0', 0x8000); good('FLOAT16', '0.0', 0); good('FLOAT16', '2048', 0x6800);
good('FLOAT16', '"nan"', 0x7e00); good('FLOAT16', '"inf"', 0x7c00); good('FLOAT16', '"-inf"', 0xfc00);
good('FLOAT16', '"0x7c01"', 0x7c01); good('FLOAT16', '"0xffff"', 0xffff); good('FLOAT16', '"0xfe00"', 0xfe00);
bad('FLOAT16', '65505', /FLOAT16/); bad('FLOAT16', '65520', /FLOAT16/); bad('FLOAT16', '0.1', /FLOAT16/);
bad('FLOAT16', '2049', /FLOAT16/); bad('FLOAT16', '2.98023223876953125e-8', /FLOAT16/);
bad('FLOAT16', '1.00048828125', /FLOAT16/); bad('FLOAT16', '1e-8', /FLOAT16/);
bad('FLOAT16', '"0xfc00"', /NaN/); bad('FLOAT16', '"0x3c00"', /NaN/); bad('FLOAT16', '"0x7fc00000"', /4 hex/);
good('FLOAT64', '0.1', 0x3fb999999999999an); good('FLOAT64', '-0.0', 0x8000000000000000n);
good('FLOAT64', '5e-324', 1n); good('FLOAT64', '1.7976931348623157e308', 0x7fefffffffffffffn);
good('FLOAT64', '1', 0x3ff0000000000000n); good('FLOAT64', '"inf"', 0x7ff0000000000000n);
good('FLOAT64', '"-inf"', 0xfff0000000000000n); good('FLOAT64', '"nan"', 0x7ff8000000000000n);
good('FLOAT64', '"0x7ff0000000000001"', 0x7ff0000000000001n); good('FLOAT64', '"0xfff8000000000000"', 0xfff8000000000000n);
good('FLOAT64', '123456789012345678901234567890', 0x45f8ee90ff6c373en);
bad('FLOAT64', '1.8e308', /binary64/); bad('FLOAT64', '"0x7ff0000000000000"', /NaN/); bad('FLOAT64', '"0x7ff8"', /16 hex/);
equal('FLOAT64 -0.0 through JSON.parse keeps its sign', M.decodeElement('FLOAT64', JSON.parse('-0.0')), 0x8000000000000000n);
equal('FLOAT16 -0.0 through JSON.parse keeps its sign', M.decodeElement('FLOAT16', JSON.parse('[-0.0]')[0]), 0x8000);

/* every FLOAT16 pattern, and FLOAT32/FLOAT64 specials, survive encode -> JSON.parse -> decode and
   encode -> parseJson -> decode */
{
    let bad1 = 0, bad2 = 0;
    const all = [];
    for (let h = 0; h < 65536; h++) all.push(M.encodeElement('FLOAT16', h));
    const viaParse = JSON.parse(`[${all.join(',')}]`);
    const viaStrict = M.parseJson(`[${all.join(',')}]`);
    for (let h = 0; h < 65536; h++) {
        if (M.decodeElement('FLOAT16', viaParse[h]) !== h) bad1++;
        if (M.decodeElement('FLOAT16', viaStrict[h]) !== h) bad2++;
    }
    check('all 65536 FLOAT16 patterns round-trip through JSON.parse', bad1 === 0, `${bad1} differ`);
    check('all 65536 FLOAT16 patterns round-trip through parseJson', bad2 === 0, `${bad2} differ`);
    equal('FLOAT16 0x8000 is written -0.0', M.encodeElement('FLOAT16', 0x8000), '-0.0');
    equal('FLOAT16 0x7e00 is written "nan"', M.encodeElement('FLOAT16', 0x7e00), '"nan"');
    equal('FLOAT16 0xfe00 is written as hex', M.encodeElement('FLOAT16', 0xfe00), '"0xfe00"');
    /* an independent float16 decoder: every finite pattern's value is sign * m * 2^e */
    let bad3 = 0;
    for (let h = 0; h < 0x7c00; h++) {
        const e = h >> 10, m = h & 1023;
        const v = e ? (1024 + m) * 2 ** (e - 25) : m * 2 ** -24;
        if (M.decodeElement('FLOAT16', v) !== h || M.decodeElement('FLOAT16', -v) !== (h | 0x8000)) bad3++;
    }
    check('FLOAT16 encoder agrees with an independent decoder on all finite patterns', bad3 === 0, `${bad3} differ`);
    const specials32 = [0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000,
                        0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, 0x7fffffff, 0x3f800000, 0x3dcccccd];
    let x = 12345;
    for (let i = 0; i < 20000; i++) { x = (Math.imul(x, 1103515245) + 12345) >>> 0; specials32.push((x ^ (x << 7)) >>> 0); }
    const t32 = specials32.map((b) => M.encodeElement('FLOAT32', b));
    const p32 = JSON.parse(`[${t32.join(',')}]`);
    arraysEqual('FLOAT32 specials and 20000 random patterns round-trip', p32.map((v) => M.decodeElement('FLOAT32', v)), specials32);
    const specials64 = [0n, 1n << 63n, 1n, 0xfffffffffffffn, 0x10000000000000n, 0x7fefffffffffffffn, 0x7ff0000000000000n,
                        0xfff0000000000000n, 0x7ff8000000000000n, 0x7ff0000000000001n, 0xffffffffffffffffn];
    for (let i = 0n; i < 5000n; i++) specials64.push(M.splitmix64(99n, i));
    const p64 = JSON.parse(`[${specials64.map((b) => M.encodeElement('FLOAT64', b)).join(',')}]`);
    arraysEqual('FLOAT64 specials and 5000 random patterns round-trip', p64.map((v) => M.decodeElement('FLOAT64', v)), specials64);
    const ints = [0n, 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, 2n ** 64n - 2n ** 53n];
    for (const dt of ['INT64', 'UINT64']) {
        const p = JSON.parse(`[${ints.map((b) => M.encodeElement(dt, b)).join(',')}]`);
        arraysEqual(`${dt} extremes round-trip`, p.map((v) => M.decodeElement(dt, v)), ints);
    }
    equal('INT64 2^53 is written as a JSON integer', M.encodeElement('INT64', 2n ** 53n), '9007199254740992');
    equal('INT64 2^53+1 is written as a string', M.encodeElement('INT64', 2n ** 53n + 1n), '"9007199254740993"');
    equal('INT64 -2^63 is written as a string', M.encodeElement('INT64', 2n ** 63n), '"-9223372036854775808"');
    equal('INT8 0xff is written -1', M.encodeElement('INT8', 0xff), '-1');
}

/* ------------------------------------------------------------------------ */
section('generators');

/* SplitMix64 r(i) per FORMAT.md, computed by a throwaway C program:
   [seed, i, r(i) in hex]. The first three for seed 0 are also the published
   first outputs of SplitMix64 seeded with 0. */
const SPLITMIX_TABLE = [
    ['0', 0, 'e220a8397b1dcdaf'],
    ['0', 1, '6e789e6aa1b965f4'],
    ['0', 2, '06c45d188009454f'],
    ['0', 3, 'f88bb8a8724c81ec'],
    ['0', 1000, '2cfa2f23425329e1'],
    ['0', 123456, 'ffa63c58868826a1'],
    ['1', 0, '910a2dec89025cc1'],
    ['1', 1, 'beeb8da1658eec67'],
    ['1', 2, 'f893a2eefb32555e'],
    ['1', 3, '71c18690ee42c90b'],
    ['1', 1000, '7760003b54a685ae'],
    ['1', 123456, 'a8028bddaf609764'],
    ['42', 0, 'bdd732262feb6e95'],
    ['42', 1, '28efe333b266f103'],
    ['42', 2, '47526757130f9f52'],
    ['42', 3, '581ce1ff0e4ae394'],
    ['42', 1000, '5566dbe893f1b4ae'],
    ['42', 123456, 'eb4a9292eae31d06'],
    ['18446744073709551615', 0, 'e4d971771b652c20'],
    ['18446744073709551615', 1, 'e99ff867dbf682c9'],
    ['18446744073709551615', 2, '382ff84cb27281e9'],
    ['18446744073709551615', 3, '6d1db36ccba982d2'],
    ['18446744073709551615', 1000, 'b758f7144a7e200a'],
    ['18446744073709551615', 123456, 'bb7352c64bbac23a'],
    ['81985529216486895', 0, '157a3807a48faa9d'],
    ['81985529216486895', 1, 'd573529b34a1d093'],
    ['81985529216486895', 2, '2f90b72e996dccbe'],
    ['81985529216486895', 3, 'a2d419334c4667ec'],
    ['81985529216486895', 1000, '825a7e1c8e8ace2b'],
    ['81985529216486895', 123456, '49fbaf86e8d00acf']
];
const rRef = (seed, i) => {              /* FORMAT.md's four lines, spelled out once more */
    const m = (1n << 64n) - 1n;
    let z = (seed + (i + 1n) * 0x9E3779B97F4A7C15n) & m;
    z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & m;
    z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & m;
    return z ^ (z >> 31n);
};
{
    let badM = 0, badR = 0;
    for (const [seed, i, hex] of SPLITMIX_TABLE) {
        if (M.splitmix64(BigInt(seed), BigInt(i)) !== BigInt('0x' + hex)) badM++;
        if (rRef(BigInt(seed), BigInt(i)) !== BigInt('0x' + hex)) badR++;
    }
    check(`splitmix64 equals the C table (${SPLITMIX_TABLE.length} values)`, badM === 0, `${badM} differ`);
    check('the test\'s own r(i) equals the C table', badR === 0, `${badR} differ`);
}
function genVector(dtype, sizes, generator, extra = {}) {
    return M.parseVector(M.toJsonText({
        format: 'dmlref-vector-1', name: 'nonzero_coordinates/x/1d/gen', operator: 'NONZERO_COORDINATES',
        tensors: {
            InputTensor: {dtype, sizes, generator, ...extra},
            OutputCountTensor: {dtype: 'UINT32', sizes: [1], xxh3: '0000000000000000'},
            OutputCoordinatesTensor: {dtype: 'UINT32', sizes: [sizes.reduce((a, b) => a * b, 1), sizes.length],
                                      xxh3: '0000000000000000'},
        },
    }));
}
{
    const r0 = 0xe220a8397b1dcdafn, r1 = 0x6e789e6aa1b965f4n, r2 = 0x06c45d188009454fn;   /* seed 0 */
    const want = {UINT8: [0xaf, 0xf4, 0x4f], INT8: [0xaf, 0xf4, 0x4f], FLOAT16: [0xcdaf, 0x65f4, 0x454f],
                  UINT16: [0xcdaf, 0x65f4, 0x454f], INT16: [0xcdaf, 0x65f4, 0x454f],
                  FLOAT32: [0x7b1dcdaf, 0xa1b965f4, 0x8009454f], UINT32: [0x7b1dcdaf, 0xa1b965f4, 0x8009454f],
                  INT32: [0x7b1dcdaf, 0xa1b965f4, 0x8009454f], FLOAT64: [r0, r1, r2], UINT64: [r0, r1, r2],
                  INT64: [r0, r1, r2]};
    for (const [dtype, bits] of Object.entries(want)) {
        arraysEqual(`"bits" seed 0 ${dtype}: the low bytes of r(0..2)`, M.generate(dtype, {kind: 'bits', seed: 0n}, 3), bits);
    }
    /* larger: 1000 elements against the independent r(i) */
    const seed = 0x0123456789abcdefn;
    const g = M.generate('FLOAT32', {kind: 'bits', seed}, 1000);
    arraysEqual('"bits" FLOAT32 1000 elements', g, Array.from({length: 1000}, (_, i) => Number(rRef(seed, BigInt(i)) & 0xffffffffn)));
    const g64 = M.generate('UINT64', {kind: 'bits', seed: 2n ** 64n - 1n}, 300);
    arraysEqual('"bits" UINT64 seed 2^64-1', g64, Array.from({length: 300}, (_, i) => rRef(2n ** 64n - 1n, BigInt(i))));

    /* index: low + r(i) mod (high - low + 1), j = i mod len(low) */
    equal('r(0) mod 10 by hand', Number(r0 % 10n), 5);
    arraysEqual('"index" UINT32 [0, 9] seed 0', M.generate('UINT32', {kind: 'index', seed: 0n, low: [0n], high: [9n]}, 3),
                [Number(r0 % 10n), Number(r1 % 10n), Number(r2 % 10n)]);
    arraysEqual('"index" INT32 [-3, 2]: negatives in two\'s complement',
                M.generate('INT32', {kind: 'index', seed: 0n, low: [-3n], high: [2n]}, 3),
                [r0, r1, r2].map((r) => Number(BigInt.asUintN(32, -3n + r % 6n))));
    const tup = M.generate('INT64', {kind: 'index', seed: 7n, low: [0n, -5n, 100n], high: [1n, -1n, 100n]}, 9);
    arraysEqual('"index" INT64 tuples: j = i mod len(low)', tup,
                Array.from({length: 9}, (_, i) => {
                    const lo = [0n, -5n, 100n][i % 3], hi = [1n, -1n, 100n][i % 3];
                    return BigInt.asUintN(64, lo + rRef(7n, BigInt(i)) % (hi - lo + 1n));
                }));
    arraysEqual('"index" INT64 over the whole range is r(i) itself',
                M.generate('INT64', {kind: 'index', seed: 3n, low: [-(2n ** 63n)], high: [2n ** 63n - 1n]}, 5),
                Array.from({length: 5}, (_, i) => BigInt.asUintN(64, -(2n ** 63n) + rRef(3n, BigInt(i)))));
    arraysEqual('"index" UINT64 [0, 2^64-1] is r(i)',
                M.generate('UINT64', {kind: 'index', seed: 3n, low: [0n], high: [2n ** 64n - 1n]}, 5),
                Array.from({length: 5}, (_, i) => rRef(3n, BigInt(i))));

    /* sparse: zero when r(i) mod 1e6 >= density, else 1 */
    const n = 2000;
    for (const [dtype, one] of [['FLOAT16', 0x3c00], ['FLOAT32', 0x3f800000], ['FLOAT64', 0x3ff0000000000000n],
                                ['INT8', 1], ['UINT64', 1n]]) {
        const zero = typeof one === 'bigint' ? 0n : 0;
        const s = M.generate(dtype, {kind: 'sparse', seed: 11n, density: 250000}, n);
        arraysEqual(`"sparse" ${dtype} density 250000`, s,
                    Array.from({length: n}, (_, i) => (rRef(11n, BigInt(i)) % 1000000n < 250000n ? one : zero)));
    }
    const nz = (d) => M.generate('UINT8', {kind: 'sparse', seed: 5n, density: d}, 5000).reduce((a, b) => a + b, 0);
    equal('"sparse" density 0 is all zero', nz(0), 0);
    equal('"sparse" density 1000000 is all one', nz(1000000), 5000);

    /* generators inside vectors */
    const v = genVector('FLOAT32', [4, 5], {kind: 'sparse', seed: '18446744073709551615', density: 500000});
    equal('a generator seed given as a decimal string', v.tensors.InputTensor.generator.seed, 2n ** 64n - 1n);
    arraysEqual('logicalElements of a generator input', M.logicalElements(v, 'InputTensor'),
                Array.from({length: 20}, (_, i) => (rRef(2n ** 64n - 1n, BigInt(i)) % 1000000n < 500000n ? 0x3f800000 : 0)));
    const gnd = (low, high, extra = {}) => M.toJsonText({
        format: 'dmlref-vector-1', name: 'gather_nd/float32/2d/gen', operator: 'GATHER_ND',
        attributes: {InputDimensionCount: 2, IndicesDimensionCount: 2}, ...extra,
        tensors: {InputTensor: {dtype: 'FLOAT32', sizes: [3, 4], data: Array(12).fill(0)},
                  IndicesTensor: {dtype: 'INT64', sizes: [5, 2], generator: {kind: 'index', seed: 1, low, high}},
                  OutputTensor: {dtype: 'FLOAT32', sizes: [1, 5], expected: [0, 0, 0, 0, 0]}}});
    const vn = M.parseVector(gnd(['-3', 0], [2, '3']));
    arraysEqual('GatherND indices tuples from an "index" generator', M.logicalElements(vn, 'IndicesTensor'),
                Array.from({length: 10}, (_, i) => BigInt.asUintN(64, [-3n, 0n][i % 2] + rRef(1n, BigInt(i)) % [6n, 4n][i % 2])));
    throws('GatherND indices need one low/high entry per tuple coordinate', () => M.parseVector(gnd([0], [2])), /tuple/);
    throws('an "index" generator with low > high', () => M.parseVector(gnd([0, 3], [2, 2])), /low 3 > high 2/);
    throws('an "index" generator outside the dtype', () =>
        genVector('UINT8', [4], {kind: 'index', seed: 0, low: [0], high: [256]}), /outside/);
    throws('an "index" generator on a float dtype', () =>
        genVector('FLOAT32', [4], {kind: 'index', seed: 0, low: [0], high: [1]}), /integer dtype/);
    throws('an unknown generator kind', () => genVector('FLOAT32', [4], {kind: 'random', seed: 0}), /unknown generator kind/);
    throws('a generator with an unknown key', () => genVector('FLOAT32', [4], {kind: 'bits', seed: 0, density: 3}), /unknown key "density"/);
    throws('a generator without seed', () => genVector('FLOAT32', [4], {kind: 'bits'}), /missing "seed"/);
    throws('a negative seed', () => genVector('FLOAT32', [4], {kind: 'bits', seed: -1}), /outside/);
    throws('a seed beyond 64 bits', () => genVector('FLOAT32', [4], {kind: 'bits', seed: '18446744073709551616'}), /outside/);
    throws('density above 1000000', () => genVector('FLOAT32', [4], {kind: 'sparse', seed: 0, density: 1000001}), /outside/);
    throws('density as a string', () => genVector('FLOAT32', [4], {kind: 'sparse', seed: 0, density: '5'}), /integer/);
}

/* ------------------------------------------------------------------------ */
section('buffers');

function geVector({input, indices, output, extra = {}}) {
    return M.parseVector(M.toJsonText({
        format: 'dmlref-vector-1', name: 'gather_elements/x/2d/t', operator: 'GATHER_ELEMENTS',
        attributes: {Axis: 0}, ...extra,
        tensors: {InputTensor: input, IndicesTensor: indices, OutputTensor: output},
    }), {source: 'test.json'});
}
const idx23 = {dtype: 'UINT32', sizes: [2, 3], data: [1, 0, 1, 0, 1, 0]};
const out23 = {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 2, 6, 1, 5, 3]};
const u8 = (buf) => Array.from(buf);
function leBytes(dtype, bits) {
    const size = M.DTYPES[dtype].esize;
    const out = [];
    let b = BigInt(bits);
    for (let k = 0; k < size; k++) { out.push(Number(b & 0xffn)); b >>= 8n; }
    return out;
}
{
    equal('DMLCalcBufferTensorSize FLOAT16 {3} = 8', M.calcBufferTensorSize('FLOAT16', [3]), 8n);
    equal('DMLCalcBufferTensorSize FLOAT32 {2,3} strides {0,1} = 12', M.calcBufferTensorSize('FLOAT32', [2, 3], [0, 1]), 12n);
    equal('DMLCalcBufferTensorSize FLOAT32 {2,3} strides {5,1} = 32', M.calcBufferTensorSize('FLOAT32', [2, 3], [5, 1]), 32n);
    equal('DMLCalcBufferTensorSize UINT8 {5} = 8', M.calcBufferTensorSize('UINT8', [5]), 8n);
    equal('DMLCalcBufferTensorSize INT64 {2,2} strides {1,2} = 32', M.calcBufferTensorSize('INT64', [2, 2], [1, 2]), 32n);
    equal('DMLCalcBufferTensorSize UINT8 {4294967295,4294967295} strides', M.calcBufferTensorSize('UINT8', [4294967295, 4294967295], [4294967295, 1]),
          ((4294967294n * 4294967295n + 4294967294n + 1n + 3n) / 4n) * 4n);
    equal('DMLCalcBufferTensorSize with a size of 0 is 0', M.calcBufferTensorSize('FLOAT32', [2, 0]), 0n);

    const v = geVector({input: {dtype: 'FLOAT32', sizes: [2, 3], data: [1, 2, 3, 4, 5, 6]}, indices: idx23, output: out23});
    const [inp, ind] = M.buildInputBuffers(v);
    equal('packed FLOAT32 {2,3}: 24 bytes', inp.length, 24);
    arraysEqual('packed FLOAT32 {2,3}: little-endian row-major', u8(inp),
                [1, 2, 3, 4, 5, 6].flatMap((x) => leBytes('FLOAT32', M.decodeElement('FLOAT32', x))));
    arraysEqual('packed UINT32 indices', u8(ind), [1, 0, 1, 0, 1, 0].flatMap((x) => leBytes('UINT32', x)));
    equal('the default total_bytes is stored', v.tensors.InputTensor.totalBytes, 24n);

    const vs = geVector({input: {dtype: 'FLOAT32', sizes: [2, 3], strides: [5, 1], data: [1, 2, 3, 4, 5, 6]},
                         indices: idx23, output: out23});
    const bs = M.buildInputBuffer(vs, 'InputTensor');
    equal('strides {5,1}: 32 bytes', bs.length, 32);
    const f = (x) => leBytes('FLOAT32', M.decodeElement('FLOAT32', x));
    arraysEqual('strides {5,1}: rows at element offsets 0 and 5, padding 0', u8(bs),
                [...f(1), ...f(2), ...f(3), 0, 0, 0, 0, 0, 0, 0, 0, ...f(4), ...f(5), ...f(6)]);

    const vt = geVector({input: {dtype: 'FLOAT32', sizes: [2, 3], strides: [1, 2], data: [1, 2, 3, 4, 5, 6]},
                         indices: idx23, output: out23});
    arraysEqual('strides {1,2} (column-major): element [i,j] at i + 2j', u8(M.buildInputBuffer(vt, 'InputTensor')),
                [1, 4, 2, 5, 3, 6].flatMap(f));

    const vb = geVector({input: {dtype: 'FLOAT32', sizes: [2, 3], strides: [0, 1], data: [1, 2, 3, 1, 2, 3]},
                         indices: idx23, output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [1, 2, 3, 1, 2, 3]}});
    const bb = M.buildInputBuffer(vb, 'InputTensor');
    arraysEqual('broadcast strides {0,1}: 12 bytes holding one row', u8(bb), [1, 2, 3].flatMap(f));
    const e = throws('broadcast data whose shared elements differ is refused', () => geVector({
        input: {dtype: 'FLOAT32', sizes: [2, 3], strides: [0, 1], data: [1, 2, 3, 1, 2, 4]}, indices: idx23, output: out23}),
        /differs from an earlier element stored at the same address/, /\$\.tensors\.InputTensor\.data\[5\]: /);
    check('the broadcast message names the shared address', e && /\(element offset 2\)/.test(e.message), e && e.message);
    throws('-0.0 and 0 sharing an address differ bit for bit', () => geVector({
        input: {dtype: 'FLOAT32', sizes: [2, 1], strides: [0, 1], data: [0, new M.RawJson('-0.0')]},
        indices: {dtype: 'UINT32', sizes: [2, 1], data: [0, 0]}, output: {dtype: 'FLOAT32', sizes: [2, 1], expected: [0, 0]}}),
        /differs from an earlier element stored at the same address/);
    noThrow('equal NaN payloads may share an address', () => geVector({
        input: {dtype: 'FLOAT32', sizes: [2, 1], strides: [0, 1], data: ['0x7fc00001', '0x7fc00001']},
        indices: {dtype: 'UINT32', sizes: [2, 1], data: [0, 0]}, output: {dtype: 'FLOAT32', sizes: [2, 1], expected: [0, 0]}}));
    throws('overlapping strides {1,1} with differing data', () => geVector({
        input: {dtype: 'UINT8', sizes: [2, 2], strides: [1, 1], data: [1, 2, 3, 4]},
        indices: {dtype: 'UINT32', sizes: [2, 2], data: [0, 0, 0, 0]}, output: {dtype: 'UINT8', sizes: [2, 2], expected: [1, 2, 1, 2]}}),
        /differs from an earlier element stored at the same address/);
    const vo = geVector({input: {dtype: 'UINT8', sizes: [2, 2], strides: [1, 1], data: [1, 2, 2, 3]},
                         indices: {dtype: 'UINT32', sizes: [2, 2], data: [0, 0, 0, 0]},
                         output: {dtype: 'UINT8', sizes: [2, 2], expected: [1, 2, 1, 2]}});
    arraysEqual('overlapping strides {1,1} with consistent data', u8(M.buildInputBuffer(vo, 'InputTensor')), [1, 2, 3, 0]);

    const vp = geVector({input: {dtype: 'FLOAT16', sizes: [3], data: [1, -2, new M.RawJson('-0.0')]},
                         indices: {dtype: 'UINT32', sizes: [3], data: [0, 1, 2]},
                         output: {dtype: 'FLOAT16', sizes: [3], expected: [1, -2, new M.RawJson('-0.0')]}});
    arraysEqual('FLOAT16 {3}: 8 bytes, 2 of padding', u8(M.buildInputBuffer(vp, 'InputTensor')), [0x00, 0x3c, 0x00, 0xc0, 0x00, 0x80, 0, 0]);

    const vx = geVector({input: {dtype: 'INT64', sizes: [2, 2], strides: [1, 3], total_bytes: 64,
                                 data: ['-9223372036854775808', -1, '18', '9223372036854775807']},
                         indices: {dtype: 'UINT32', sizes: [2, 2], data: [0, 0, 0, 0]},
                         output: {dtype: 'INT64', sizes: [2, 2], expected: [0, 0, 0, 0]}});
    const bx = M.buildInputBuffer(vx, 'InputTensor');
    equal('a given total_bytes sets the buffer size', bx.length, 64);
    const dv = new DataView(bx.buffer);
    arraysEqual('INT64 strides {1,3}: [i,j] at i + 3j', [0, 3, 1, 4].map((o) => dv.getBigUint64(8 * o, true)),
                [2n ** 63n, 2n ** 64n - 1n, 18n, 2n ** 63n - 1n]);
    const vsmall = () => geVector({input: {dtype: 'FLOAT32', sizes: [2, 3], total_bytes: 20, data: [1, 2, 3, 4, 5, 6]},
                             indices: idx23, output: out23});
    throws('a total_bytes below what the elements span is refused (R-TD-9)', vsmall,
           /\$\.tensors\.InputTensor\.total_bytes: 20 bytes, below the 24 that the elements span \(R-TD-9\)/);

    const vg = genVector('UINT16', [3, 2], {kind: 'bits', seed: 9}, {strides: [1, 4]});
    const bg = M.buildInputBuffer(vg, 'InputTensor');
    const dg = new DataView(bg.buffer);
    arraysEqual('a generator input laid out with strides {1,4}', [0, 4, 1, 5, 2, 6].map((o) => dg.getUint16(2 * o, true)),
                Array.from({length: 6}, (_, i) => Number(rRef(9n, BigInt(i)) & 0xffffn)));
    equal('generator input strides {1,4}: DMLCalcBufferTensorSize', bg.length, 16);
    const vgb = genVector('UINT8', [2, 3], {kind: 'sparse', seed: 1, density: 1000000}, {strides: [0, 1]});
    arraysEqual('a broadcast generator input whose shared elements agree', u8(M.buildInputBuffer(vgb, 'InputTensor')), [1, 1, 1, 0]);
    throws('a broadcast generator input whose shared elements differ is refused',
           () => genVector('UINT8', [2, 3], {kind: 'bits', seed: 1}, {strides: [0, 1]}),
           /\$\.tensors\.InputTensor\.generator: element 3 differs from an earlier element stored at the same address \(element offset 0\)/);
}

/* ------------------------------------------------------------------------ */
section('checking outputs');
{
    const base = {input: {dtype: 'FLOAT32', sizes: [3, 3], data: [1, 2, 3, 4, 5, 6, 7, 8, 9]},
                  indices: {dtype: 'UINT32', sizes: [2, 3], data: [1, 2, 0, 2, 0, 0]}};
    const want = new Float32Array([4, 8, 3, 7, 2, 3]);
    const digest = M.xxh3Hex(new Uint8Array(want.buffer));
    const v = geVector({...base, output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, 7, 2, 3], xxh3: digest}});
    const good = new Uint8Array(want.buffer.slice(0));
    const r = M.checkOutputs(v, [good]);
    check('a correct output passes', r.ok, r.message);
    check('a correct output passes (outputs by name, as an ArrayBuffer)', M.checkOutputs(v, {OutputTensor: good.buffer}).ok);
    const flipped = good.slice();
    flipped[4 * 4 + 2] ^= 0x10;                                 /* element 4 = [1, 1] */
    const rf = M.checkOutputs(v, [flipped]);
    check('a flipped bit fails', !rf.ok);
    arraysEqual('the failure names coordinate [1, 1]', rf.outputs[0].first.coordinate, [1, 1]);
    equal('the failure names element 4', rf.outputs[0].first.element, 4);
    equal('the failure gives the expected bits', rf.outputs[0].first.expected, '0x40000000 (2)');
    equal('the failure gives the bits got', rf.outputs[0].first.got, '0x40100000 (2.25)');
    check('the message names the tensor and coordinate', /^OutputTensor\[1, 1\] \(element 4\): expected 0x40000000 \(2\), got 0x40100000 \(2\.25\); 1 wrong element/.test(rf.message), rf.message);
    equal('the digest of the wrong output is reported', rf.outputs[0].digest.got !== digest, true);
    const two = good.slice();
    two[0] ^= 1; two[23] ^= 0x80;
    const r2 = M.checkOutputs(v, [two]);
    equal('two wrong elements are counted', r2.outputs[0].wrongElements, 2);
    arraysEqual('the first of two wrong elements is reported', r2.outputs[0].first.coordinate, [0, 0]);
    const neg0 = geVector({...base, output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, 7, 2, 3]}});
    const z = new Uint8Array(new Float32Array([4, 8, 3, 7, 2, 3]).buffer);
    z[23] ^= 0x80;                                             /* 3 -> -3 */
    check('a sign flip fails', !M.checkOutputs(neg0, [z]).ok);
    throws('a buffer smaller than the layout', () => { const rr = M.checkOutputs(v, [good.slice(0, 20)]); if (!rr.ok) throw new Error(rr.message); }, /too small/);

    /* xxh3 only */
    const vx = geVector({...base, output: {dtype: 'FLOAT32', sizes: [2, 3], xxh3: digest}});
    check('xxh3 only: a correct output passes', M.checkOutputs(vx, [good]).ok);
    const rx = M.checkOutputs(vx, [flipped]);
    check('xxh3 only: a wrong output fails, naming the digests', !rx.ok && rx.message.includes(digest) && /XXH3-64/.test(rx.message), rx.message);
    throws('xxh3 that does not match expected is refused', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, 7, 2, 3], xxh3: '0123456789abcdef'}}), /does not match/);
    throws('xxh3 with upper-case hex is refused', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], xxh3: digest.toUpperCase()}}), /16 lower-case hex/);

    /* null and any_of */
    const vn = geVector({...base, output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, null, 3, {any_of: [7, '-inf', 'nan']}, 2, 3]}});
    const w = (vals) => new Uint8Array(new Float32Array(vals).buffer);
    check('null passes anything', M.checkOutputs(vn, [w([4, 12345, 3, 7, 2, 3])]).ok);
    check('null passes NaN', M.checkOutputs(vn, [w([4, NaN, 3, 7, 2, 3])]).ok);
    check('any_of passes its first value', M.checkOutputs(vn, [w([4, 0, 3, 7, 2, 3])]).ok);
    check('any_of passes its second value', M.checkOutputs(vn, [w([4, 0, 3, -Infinity, 2, 3])]).ok);
    const nanOut = w([4, 0, 3, 0, 2, 3]);
    new DataView(nanOut.buffer).setUint32(12, 0x7fc00000, true);
    check('any_of passes its third value (canonical NaN)', M.checkOutputs(vn, [nanOut]).ok);
    new DataView(nanOut.buffer).setUint32(12, 0x7fc00001, true);
    const ra = M.checkOutputs(vn, [nanOut]);
    check('any_of refuses another NaN', !ra.ok);
    check('an any_of failure lists the alternatives', ra.ok === false && /\[1, 0\].*expected any of 0x40e00000 \(7\), 0xff800000 \(-Infinity\), 0x7fc00000 \(NaN\), got 0x7fc00001 \(NaN\)/.test(ra.message), ra.message);
    throws('xxh3 with a null element is refused', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, null, 3, 7, 2, 3], xxh3: digest}}), /null or any_of/);
    throws('an empty any_of is refused', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, {any_of: []}, 2, 3]}}), /non-empty/);
    throws('any_of with another key is refused', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, {any_of: [1], x: 1}, 2, 3]}}), /any_of/);
    throws('any_of with a bad element is refused, with its path', () => geVector({...base,
        output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, {any_of: [1, 1.1]}, 2, 3]}}),
        /\$\.tensors\.OutputTensor\.expected\[3\]: any_of\[1\]/);
    throws('null in data is refused', () => geVector({input: {dtype: 'FLOAT32', sizes: [3, 3], data: [1, 2, 3, 4, null, 6, 7, 8, 9]},
        indices: base.indices, output: {dtype: 'FLOAT32', sizes: [2, 3], expected: [4, 8, 3, 7, 2, 3]}}), /data\[4\]/);

    /* output strides: padding is never compared */
    const vs = geVector({...base, output: {dtype: 'FLOAT32', sizes: [2, 3], strides: [4, 1], expected: [4, 8, 3, 7, 2, 3]}});
    const padded = M.expectedOutputBuffers(vs)[0];
    equal('an output with strides {4,1} has 28 bytes', padded.length, 28);
    padded[12] = 0xee; padded[13] = 0xee;                   /* element offset 3: padding */
    check('output padding is not compared', M.checkOutputs(vs, [padded]).ok);
    padded[16] ^= 1;                                        /* element offset 4 = [1, 0] */
    const rp = M.checkOutputs(vs, [padded]);
    check('a strided output element is compared', !rp.ok && rp.outputs[0].first.coordinate.join() === '1,0', rp.message);

    /* NonZero: two outputs, null rows */
    const nzText = `{"format": "dmlref-vector-1", "name": "nonzero_coordinates/float32/2d/basic",
        "operator": "NONZERO_COORDINATES", "attributes": {}, "tensors": {
        "InputTensor": {"dtype": "FLOAT32", "sizes": [2, 2], "data": [0, -0.0, "nan", 5]},
        "OutputCountTensor": {"dtype": "UINT32", "sizes": [1], "expected": [2]},
        "OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [4, 2], "expected": [1, 0, 1, 1, null, null, null, null]}}}`;
    const vz = M.parseVector(nzText);
    const outs = [new Uint8Array(new Uint32Array([2]).buffer), new Uint8Array(new Uint32Array([1, 0, 1, 1, 9, 9, 9, 9]).buffer)];
    check('NonZero outputs with null rows pass', M.checkOutputs(vz, outs).ok);
    outs[0][0] = 3;
    const rz = M.checkOutputs(vz, outs);
    check('a wrong NonZero count fails on OutputCountTensor[0]', !rz.ok && /^OutputCountTensor\[0\]/.test(rz.message), rz.message);
    equal('NonZero: -0.0 input element decoded with its sign', vz.tensors.InputTensor.data[1], 0x80000000);

    /* expect_error: nothing to check */
    const ve = M.parseVector(`{"format": "dmlref-vector-1", "name": "gather_elements/float32/2d/axis",
        "operator": "GATHER_ELEMENTS", "attributes": {"Axis": 2}, "expect_error": {"status": "DMLREF_ERROR_INVALID_ATTRIBUTE", "rule": "R-GE-2"},
        "tensors": {"InputTensor": {"dtype": "FLOAT32", "sizes": [2, 2]}, "IndicesTensor": {"dtype": "UINT32", "sizes": [2, 2]},
        "OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 2]}}}`);
    equal('an expect_error case parses without data', ve.expectError.rule, 'R-GE-2');
    throws('checkOutputs on an expect_error case throws', () => M.checkOutputs(ve, [new Uint8Array(16)]), /expects DMLREF_ERROR_INVALID_ATTRIBUTE/);
}

/* ------------------------------------------------------------------------ */
section('permitted variants (format 2)');
{
    /* FORMAT.md's example, NonZero with subnormals: golden count 2, flushed 0 */
    const text = `{"format": "dmlref-vector-2", "name": "nonzero_coordinates/float32/1d/subnormal",
        "operator": "NONZERO_COORDINATES", "tensors": {
        "InputTensor": {"dtype": "FLOAT32", "sizes": [4], "data": [1.401298464324817e-45, -0.0, -1.1754942106924411e-38, 0]},
        "OutputCountTensor": {"dtype": "UINT32", "sizes": [1], "expected": [2], "xxh3": "70f5911d66a20bc9"},
        "OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [4, 1], "expected": [0, 2, null, null], "xxh3": "ec522cf392ba6fc0"}},
        "variants": [{"name": "subnormals_flushed", "rule": "R-NZ-10", "outputs": {
          "OutputCountTensor": {"expected": [0], "xxh3": "48b2c92616fc193d"},
          "OutputCoordinatesTensor": {"expected": [null, null, null, null], "xxh3": "2d06800538d394c2"}}}]}`;
    const v = M.parseVector(text, {source: 'v.json'});
    equal('a format-2 vector keeps its format', v.format, 'dmlref-vector-2');
    equal('its variant is read', v.variants.length, 1);
    equal('the variant\'s name', v.variants[0].name, 'subnormals_flushed');
    equal('the variant\'s rule', v.variants[0].rule, 'R-NZ-10');
    arraysEqual('the variant\'s expected count', v.variants[0].tensors.OutputCountTensor.expected.bits, [0]);
    equal('a format-1 vector has no variants', M.parseVector(text.replace(/,\s*"variants": \[[^]*\]\}$/, '}')
        .replace('dmlref-vector-2', 'dmlref-vector-1')).variants.length, 0);
    const u32 = (...xs) => new Uint8Array(new Uint32Array(xs).buffer);
    const golden = M.checkOutputs(v, [u32(2), u32(0, 2, 7, 7)]);
    check('golden outputs pass, as the golden answer', golden.ok && golden.variant === null && golden.rule === null, golden.message);
    const flushed = M.checkOutputs(v, [u32(0), u32(5, 5, 5, 5)]);
    check('flushed outputs pass, as the variant', flushed.ok && flushed.variant === 'subnormals_flushed' && flushed.rule === 'R-NZ-10', flushed.message);
    check('the message names the variant and its rule', /subnormals_flushed \(R-NZ-10\)/.test(flushed.message), flushed.message);
    check('the golden comparison is kept beside it', flushed.golden && !flushed.golden.ok);
    const strict = M.checkOutputs(v, [u32(0), u32(5, 5, 5, 5)], {variants: false});
    check('{variants: false} refuses the flushed outputs', !strict.ok && strict.variant === null);
    const wrong = M.checkOutputs(v, [u32(1), u32(2, 5, 5, 5)]);
    check('outputs that match neither fail', !wrong.ok && wrong.variant === null);
    check('the failure reports the golden comparison and names the variants',
          /^OutputCountTensor\[0\].*nor do they match a permitted variant \(subnormals_flushed\)$/.test(wrong.message), wrong.message);
    const vb = M.expectedOutputBuffers(v, 'subnormals_flushed');
    equal('expectedOutputBuffers of a variant by name', M.checkOutputs(v, vb).variant, 'subnormals_flushed');
    equal('expectedOutputBuffers of a variant by index', M.checkOutputs(v, M.expectedOutputBuffers(v, 0)).variant, 'subnormals_flushed');
    throws('expectedOutputBuffers of an unknown variant', () => M.expectedOutputBuffers(v, 'x'), /no variant "x"/);

    const refuse = (what, edited, re) => throws(what, () => M.parseVector(edited, {source: 'v.json'}), re);
    refuse('variants in a format-1 vector', text.replace('dmlref-vector-2', 'dmlref-vector-1'),
           /^v\.json: \$\.variants: a "dmlref-vector-1" vector has no variants/);
    refuse('a format-2 vector without variants', text.replace(/,\s*"variants": \[[^]*\]\}$/, '}'), /\$\.variants: missing/);
    refuse('empty variants', text.replace(/"variants": \[[^]*\]\}$/, '"variants": []}'), /\$\.variants: variants must be a non-empty array/);
    refuse('an unknown key in a variant', text.replace('"rule": "R-NZ-10",', '"rule": "R-NZ-10", "why": 1,'),
           /\$\.variants\[0\]\.why: unknown key "why"/);
    refuse('an unknown variant name', text.replace('"subnormals_flushed"', '"flushed"'), /\$\.variants\[0\]\.name: unknown variant "flushed"/);
    refuse('a rule that is not the variant\'s', text.replace('"R-NZ-10"', '"R-NZ-9"'), /\$\.variants\[0\]\.rule: "R-NZ-9" is not the rule/);
    refuse('an output the operator does not have', text.replace('"OutputCountTensor": {"expected": [0]', '"OutputTensor": {"expected": [0]'),
           /\$\.variants\[0\]\.outputs\.OutputTensor: unknown key/);
    refuse('an output left out', text.replace(/"OutputCountTensor": \{"expected": \[0\], "xxh3": "48b2c92616fc193d"\},\s*/, ''),
           /\$\.variants\[0\]\.outputs: missing output "OutputCountTensor"/);
    refuse('a dtype in a variant\'s output', text.replace('{"expected": [0]', '{"dtype": "UINT32", "expected": [0]'),
           /\$\.variants\[0\]\.outputs\.OutputCountTensor\.dtype: unknown key/);
    refuse('a variant output with neither expected nor xxh3', text.replace('{"expected": [0], "xxh3": "48b2c92616fc193d"}', '{}'),
           /needs "expected", "xxh3" or both/);
    refuse('a wrong element count in a variant', text.replace('[null, null, null, null]', '[null, null, null]'),
           /\$\.variants\[0\]\.outputs\.OutputCoordinatesTensor\.expected: 3 elements for sizes \[4, 1\]/);
    refuse('an element out of its type in a variant', text.replace('{"expected": [0]', '{"expected": [-1]'),
           /\$\.variants\[0\]\.outputs\.OutputCountTensor\.expected\[0\]/);
    refuse('a variant digest that does not match', text.replace('48b2c92616fc193d', '48b2c92616fc193e'),
           /\$\.variants\[0\]\.outputs\.OutputCountTensor\.xxh3: xxh3 48b2c92616fc193e does not match/);
    refuse('the variant on an integer input', text.replace('"dtype": "FLOAT32", "sizes": [4], "data": [1.401298464324817e-45, -0.0, -1.1754942106924411e-38, 0]',
                                                          '"dtype": "UINT8", "sizes": [4], "data": [1, 0, 2, 0]'),
           /\$\.variants\[0\]\.name: "subnormals_flushed" applies only to NONZERO_COORDINATES with a float input/);
    refuse('the same variant twice', text.replace('"variants": [', '"variants": [{"name": "subnormals_flushed", "rule": "R-NZ-10", "outputs": {' +
           '"OutputCountTensor": {"expected": [0]}, "OutputCoordinatesTensor": {"expected": [null, null, null, null]}}}, '),
           /\$\.variants\[1\]\.name: variant "subnormals_flushed" appears twice/);
}

/* ------------------------------------------------------------------------ */
section('parser strictness');
{
    const ok = {
        format: 'dmlref-vector-1', name: 'gather_elements/float32/2d/doc_example', operator: 'GATHER_ELEMENTS',
        feature_level: '6_4', min_feature_level: '2_1', attributes: {Axis: 0}, oob: 'error', notes: 'n',
        tensors: {
            InputTensor: {dtype: 'FLOAT32', sizes: [3, 3], strides: null, flags: 0, alignment: 4, data: [1, 2, 3, 4, 5, 6, 7, 8, 9]},
            IndicesTensor: {dtype: 'UINT32', sizes: [2, 3], data: [1, 2, 0, 2, 0, 0]},
            OutputTensor: {dtype: 'FLOAT32', sizes: [2, 3], total_bytes: 24, expected: [4, 8, 3, 7, 2, 3]},
        },
    };
    const text = M.toJsonText(ok);
    const v = noThrow('a complete valid vector parses', () => M.parseVector(text));
    if (v) {
        equal('operator', v.op, 'GATHER_ELEMENTS');
        equal('feature level', v.featureLevel, '6_4');
        equal('attributes.Axis', v.attributes.Axis, 0);
        equal('alignment', v.tensors.InputTensor.alignment, 4);
        arraysEqual('binding order', v.inputs.map((t) => t.name).concat(v.outputs.map((t) => t.name)),
                    ['InputTensor', 'IndicesTensor', 'OutputTensor']);
    }
    noThrow('parseVector accepts UTF-8 bytes', () => M.parseVector(new TextEncoder().encode(text)));
    const mut = (f) => { const o = JSON.parse(JSON.stringify(ok)); f(o); return M.toJsonText(o); };
    const refuse = (name, t, ...res) => throws(name, () => M.parseVector(t, {source: 'x.json'}), /^x\.json/, ...res);

    /* duplicate keys, anywhere */
    refuse('a duplicate top-level key', text.replace('"notes": "n"', '"notes": "n", "notes": "m"'), /duplicate key "notes"/);
    refuse('a duplicate key in a tensor', text.replace('"dtype": "UINT32"', '"dtype": "UINT32", "dtype": "UINT32"'),
           /\$\.tensors\.IndicesTensor: duplicate key "dtype"/);
    refuse('a duplicate key in attributes', text.replace('"Axis": 0', '"Axis": 0, "Axis": 0'), /duplicate key "Axis"/);
    refuse('a duplicate key spelled with an escape', text.replace('"notes": "n"', '"notes": "n", "not\\u0065s": "m"'), /duplicate key "notes"/);
    refuse('a duplicate tensor', text.replace('"tensors": {', '"tensors": {"OutputTensor": {}, '), /duplicate key "OutputTensor"/);
    refuse('a duplicate key inside any_of', text.replace('"expected": [4, 8', '"expected": [{"any_of": [4], "any_of": [4]}, 8'),
           /\$\.tensors\.OutputTensor\.expected\[0\]: duplicate key "any_of"/);
    /* JSON syntax */
    refuse('trailing text', text + ' x', /text after/);
    refuse('a trailing comma', text.replace('"notes": "n"', '"notes": "n",'), /string key/);
    refuse('a leading zero', text.replace('"Axis": 0', '"Axis": 00'), /number/);
    refuse('NaN as a literal', text.replace('[1, 2, 3, 4', '[NaN, 2, 3, 4'), /unexpected character/);
    refuse('a byte order mark', '\ufeff' + text, /byte order mark/);
    refuse('a single-quoted string', text.replace('"n"', "'n'"), /unexpected character/);
    refuse('an unterminated string', text.slice(0, 30), /unterminated|end of input/);
    refuse('a raw newline in a string', text.replace('"notes": "n"', '"notes": "a\nb"'), /control character/);
    refuse('an invalid escape', text.replace('"notes": "n"', '"notes": "\\x41"'), /escape/);
    refuse('truncated text', text.slice(0, text.length - 2), /end of input/);
    refuse('invalid UTF-8', Buffer.concat([Buffer.from(text.replace('"n"', '"')), Buffer.from([0xc3, 0x28]), Buffer.from('"')]), /UTF-8/);
    /* format */
    refuse('an unknown format', mut((o) => { o.format = 'dmlref-vector-3'; }), /unknown format "dmlref-vector-3"/);
    refuse('no format', mut((o) => { delete o.format; }), /no "format"/);
    refuse('a top level that is not an object', '[1]', /must be an object/);
    /* top-level keys */
    refuse('an unknown top-level key', mut((o) => { o.comment = 'x'; }), /unknown key "comment"/);
    refuse('no name', mut((o) => { delete o.name; }), /missing required key "name"/);
    refuse('no tensors', mut((o) => { delete o.tensors; }), /missing required key "tensors"/);
    refuse('an upper-case name', mut((o) => { o.name = 'Gather/x'; }), /\$\.name/);
    refuse('a 201-character name', mut((o) => { o.name = 'a'.repeat(201); }), /1 to 200/);
    noThrow('a 200-character name', () => M.parseVector(mut((o) => { o.name = 'a'.repeat(200); })));
    refuse('an empty name', mut((o) => { o.name = ''; }), /\$\.name/);
    refuse('an unknown operator', mut((o) => { o.operator = 'GATHER'; }), /unknown operator "GATHER"/);
    refuse('a lower-case operator', mut((o) => { o.operator = 'gather_elements'; }), /unknown operator/);
    refuse('an unknown feature level', mut((o) => { o.feature_level = '7_0'; }), /\$\.feature_level: unknown feature level/);
    refuse('a feature level as a number', mut((o) => { o.feature_level = 3.0; }), /must be a string/);
    refuse('a dotted feature level', mut((o) => { o.feature_level = '3.0'; }), /unknown feature level "3\.0"/);
    refuse('an unknown min_feature_level', mut((o) => { o.min_feature_level = '2_2'; }), /min_feature_level/);
    refuse('an unknown oob', mut((o) => { o.oob = 'wrap'; }), /\$\.oob/);
    refuse('notes that are not a string', mut((o) => { o.notes = 1; }), /\$\.notes/);
    const sc = M.parseVector(mut((o) => {
        o.operator = 'SCATTER';
        o.tensors.UpdatesTensor = {dtype: 'FLOAT32', sizes: [2, 3], data: [0, 0, 0, 0, 0, 0]};
    }));
    equal('SCATTER is read as SCATTER_ELEMENTS', sc.op, 'SCATTER_ELEMENTS');
    equal('SCATTER keeps its written name', sc.operator, 'SCATTER');
    equal('the default feature level is 6_4', M.parseVector(mut((o) => { delete o.feature_level; })).featureLevel, '6_4');
    equal('the default oob is error', M.parseVector(mut((o) => { delete o.oob; })).oob, 'error');
    /* attributes */
    refuse('no attributes for GATHER_ELEMENTS', mut((o) => { delete o.attributes; }), /missing "attributes"/);
    refuse('no Axis', mut((o) => { o.attributes = {}; }), /missing attribute "Axis"/);
    refuse('an unknown attribute', mut((o) => { o.attributes.Batch = 1; }), /unknown key "Batch"/);
    refuse('a negative Axis', mut((o) => { o.attributes.Axis = -1; }), /\$\.attributes\.Axis/);
    refuse('Axis 4294967296', mut((o) => { o.attributes.Axis = 4294967296; }), /outside/);
    noThrow('Axis 4294967295 is read (validation refuses it, not the reader)', () => M.parseVector(mut((o) => { o.attributes.Axis = 4294967295; })));
    refuse('Axis 1.0', text.replace('"Axis": 0', '"Axis": 1.0'), /JSON integer/);
    refuse('Axis "0"', mut((o) => { o.attributes.Axis = '0'; }), /integer/);
    const nd1 = (attrs) => M.toJsonText({format: 'dmlref-vector-1', name: 'gather_nd1/float32/2d/a', operator: 'GATHER_ND1',
        attributes: attrs, tensors: {InputTensor: {dtype: 'FLOAT32', sizes: [2, 2], data: [1, 2, 3, 4]},
                                     IndicesTensor: {dtype: 'UINT32', sizes: [2, 1], data: [0, 1]},
                                     OutputTensor: {dtype: 'FLOAT32', sizes: [2, 2], expected: [1, 2, 3, 4]}}});
    noThrow('GATHER_ND1 with its three attributes', () => M.parseVector(nd1({InputDimensionCount: 2, IndicesDimensionCount: 2, BatchDimensionCount: 0})));
    refuse('GATHER_ND1 without BatchDimensionCount', nd1({InputDimensionCount: 2, IndicesDimensionCount: 2}), /BatchDimensionCount/);
    refuse('GATHER_ND with BatchDimensionCount', nd1({InputDimensionCount: 2, IndicesDimensionCount: 2, BatchDimensionCount: 0})
        .replace('"GATHER_ND1"', '"GATHER_ND"'), /unknown key "BatchDimensionCount"/);
    const nz = (attrs) => `{"format": "dmlref-vector-1", "name": "nonzero_coordinates/uint8/1d/a", "operator": "NONZERO_COORDINATES"${attrs},
        "tensors": {"InputTensor": {"dtype": "UINT8", "sizes": [2], "data": [0, 1]},
        "OutputCountTensor": {"dtype": "UINT32", "sizes": [1], "expected": [1]},
        "OutputCoordinatesTensor": {"dtype": "UINT32", "sizes": [2, 1], "expected": [1, null]}}}`;
    noThrow('NONZERO_COORDINATES without attributes', () => M.parseVector(nz('')));
    noThrow('NONZERO_COORDINATES with attributes {}', () => M.parseVector(nz(', "attributes": {}')));
    refuse('NONZERO_COORDINATES with an attribute', nz(', "attributes": {"Axis": 0}'), /unknown key "Axis"/);
    refuse('attributes that are not an object', nz(', "attributes": []'), /must be an object/);
    /* tensors */
    refuse('a missing tensor', mut((o) => { delete o.tensors.IndicesTensor; }), /missing tensor "IndicesTensor"/);
    refuse('an extra tensor', mut((o) => { o.tensors.UpdatesTensor = o.tensors.IndicesTensor; }), /unknown key "UpdatesTensor"/);
    refuse('an unknown tensor key', mut((o) => { o.tensors.InputTensor.layout = 'nchw'; }), /\$\.tensors\.InputTensor\.layout: unknown key/);
    refuse('expected on an input', mut((o) => { o.tensors.InputTensor.expected = []; }), /"expected" is not allowed on an input/);
    refuse('data on an output', mut((o) => { o.tensors.OutputTensor.data = [4, 8, 3, 7, 2, 3]; }), /"data" is not allowed on an output/);
    refuse('both data and generator', mut((o) => { o.tensors.InputTensor.generator = {kind: 'bits', seed: 0}; }), /both/);
    refuse('an input with neither data nor generator', mut((o) => { delete o.tensors.InputTensor.data; }), /needs "data" or "generator"/);
    refuse('an output with neither expected nor xxh3', mut((o) => { delete o.tensors.OutputTensor.expected; }), /needs "expected", "xxh3"/);
    refuse('no dtype', mut((o) => { delete o.tensors.InputTensor.dtype; }), /missing "dtype"/);
    refuse('an unknown dtype', mut((o) => { o.tensors.InputTensor.dtype = 'BFLOAT16'; }), /unknown dtype/);
    refuse('a lower-case dtype', mut((o) => { o.tensors.InputTensor.dtype = 'float32'; }), /unknown dtype/);
    refuse('no sizes', mut((o) => { delete o.tensors.InputTensor.sizes; }), /missing "sizes"/);
    refuse('no output sizes outside a case', mut((o) => { delete o.tensors.OutputTensor.sizes; }), /missing "sizes"/);
    refuse('empty sizes', mut((o) => { o.tensors.InputTensor.sizes = []; }), /1 to 8/);
    refuse('nine sizes', mut((o) => { o.tensors.InputTensor.sizes = [1, 1, 1, 1, 1, 1, 1, 3, 3]; }), /1 to 8/);
    refuse('a size of 2^32', mut((o) => { o.tensors.InputTensor.sizes = [4294967296, 1]; }), /sizes\[0\]/);
    refuse('a fractional size', text.replace('"sizes": [3, 3]', '"sizes": [3, 3.0]'), /sizes\[1\]: a size must be a JSON integer/);
    refuse('a size of 0 with data of 9 elements', mut((o) => { o.tensors.InputTensor.sizes = [0, 3]; }), /9 elements for sizes \[0, 3\]/);
    noThrow('sizes of 0 are read (validation refuses them)', () => M.parseVector(mut((o) => {
        o.tensors.InputTensor.sizes = [0, 3]; o.tensors.InputTensor.data = [];
        o.expect_error = {status: 'DMLREF_ERROR_INVALID_SIZES', rule: 'R-TD-2'};
        delete o.tensors.OutputTensor.expected; delete o.tensors.OutputTensor.total_bytes; })));
    refuse('strides of the wrong length', mut((o) => { o.tensors.InputTensor.strides = [3]; }), /1 strides for 2 sizes/);
    refuse('a negative stride', mut((o) => { o.tensors.InputTensor.strides = [3, -1]; }), /strides\[1\]/);
    refuse('strides as an object', mut((o) => { o.tensors.InputTensor.strides = {}; }), /array or null/);
    refuse('a negative total_bytes', mut((o) => { o.tensors.InputTensor.total_bytes = -4; }), /total_bytes/);
    noThrow('total_bytes of 2^64-1 is read', () => M.parseVector(text.replace('"total_bytes": 24', '"total_bytes": 18446744073709551615')));
    refuse('total_bytes of 2^64', text.replace('"total_bytes": 24', '"total_bytes": 18446744073709551616'), /outside/);
    noThrow('total_bytes as a decimal string is read', () => M.parseVector(text.replace('"total_bytes": 24', '"total_bytes": "24"')));
    refuse('flags of 2^32', mut((o) => { o.tensors.InputTensor.flags = 4294967296; }), /flags/);
    refuse('too few data elements', mut((o) => { o.tensors.InputTensor.data.pop(); }), /8 elements for sizes \[3, 3\] \(9 elements\)/);
    refuse('too many expected elements', mut((o) => { o.tensors.OutputTensor.expected.push(1); }), /7 elements/);
    refuse('a nested data array', mut((o) => { o.tensors.InputTensor.data = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]; }), /3 elements/);
    refuse('a data element of the wrong encoding, with its path', mut((o) => { o.tensors.IndicesTensor.data[3] = 'x'; }),
           /\$\.tensors\.IndicesTensor\.data\[3\]: a UINT32 element must be an integer/);
    refuse('a FLOAT32 data element 1.1', mut((o) => { o.tensors.InputTensor.data[8] = 1.1; }),
           /\$\.tensors\.InputTensor\.data\[8\]: 1\.1 is not exactly representable as FLOAT32/);
    refuse('an INT8 element 300', mut((o) => { o.tensors.IndicesTensor.dtype = 'INT8'; o.tensors.IndicesTensor.data[0] = 300; }), /outside/);
    /* expect_error */
    const err = (e, f = () => {}) => mut((o) => {
        o.expect_error = e; delete o.tensors.OutputTensor.expected; delete o.tensors.OutputTensor.total_bytes; f(o);
    });
    noThrow('an expect_error case', () => M.parseVector(err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'R-GE-3'})));
    noThrow('an expect_error case with rule ""', () => M.parseVector(err({status: 'DMLREF_ERROR_INVALID_ARGUMENT', rule: ''})));
    noThrow('an expect_error case with a decision rule', () => M.parseVector(err({status: 'DMLREF_ERROR_OUTPUT_ALIASING', rule: 'D6'})));
    noThrow('an expect_error case without input data', () => M.parseVector(err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'R-GE-3'},
        (o) => { delete o.tensors.InputTensor.data; delete o.tensors.IndicesTensor.data; })));
    refuse('expected in an expect_error case', err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'R-GE-3'},
        (o) => { o.tensors.OutputTensor.expected = [4, 8, 3, 7, 2, 3]; }), /"expected" in a case that expects an error/);
    refuse('xxh3 in an expect_error case', err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'R-GE-3'},
        (o) => { o.tensors.OutputTensor.xxh3 = '0000000000000000'; }), /"xxh3" in a case/);
    refuse('an unknown status', err({status: 'DMLREF_ERROR_BAD', rule: 'R-GE-3'}), /unknown dmlref_status/);
    refuse('DMLREF_OK as an expected error', err({status: 'DMLREF_OK', rule: ''}), /unknown dmlref_status/);
    refuse('a malformed rule', err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'GE-3'}), /rule id/);
    refuse('a source erratum as a rule', err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'S-13'}), /rule id/);
    refuse('expect_error without rule', err({status: 'DMLREF_ERROR_SIZE_MISMATCH'}), /missing "rule"/);
    refuse('expect_error with another key', err({status: 'DMLREF_ERROR_SIZE_MISMATCH', rule: 'R-GE-3', message: 'x'}), /unknown key "message"/);
    /* cases for eval */
    const caseText = mut((o) => { delete o.tensors.OutputTensor.expected; delete o.tensors.OutputTensor.sizes; delete o.tensors.OutputTensor.total_bytes; });
    const c = noThrow('a case for eval: outputs without sizes or expected', () => M.parseVector(caseText, {case: true}));
    if (c) equal('a case output without sizes has sizes null', c.tensors.OutputTensor.sizes, null);
    refuse('the same text is not a complete vector', caseText, /missing "sizes"/);
    /* error messages */
    const e = throws('a message carries the source name and JSON path', () => M.parseVector(
        mut((o) => { o.tensors.IndicesTensor.sizes[1] = -3; }), {source: 'case.json'}), /^case\.json: \$\.tensors\.IndicesTensor\.sizes\[1\]: /);
    check('errors are VectorError', e instanceof M.VectorError);
    const se = throws('a syntax error names line and column', () => M.parseVector('{\n  "format": x}', {source: 'a.json'}), /^a\.json:2:13: /);
    check('syntax errors are VectorError', se instanceof M.VectorError);
}

/* ------------------------------------------------------------------------ */
section('the module\'s usage example');
{
    const src = readFileSync(fileURLToPath(moduleUrl), 'utf8');
    const block = src.slice(src.indexOf(' * Usage'), src.indexOf(' * Errors in a vector'));
    const lines = block.split('\n').filter((l) => l.startsWith(' *   ')).map((l) => l.slice(5));
    const code = lines.filter((l) => !l.startsWith('//')).join('\n')
        .replace("'./scripts/loaders/dmlref_vectors.mjs'", JSON.stringify(moduleUrl));
    const promised = lines.filter((l) => l.startsWith('//')).map((l) => l.slice(3));
    const logged = [];
    const log = console.log;
    try {
        console.log = (...a) => logged.push(a.join(' '));
        await import('data:text/javascript,' + encodeURIComponent(code));
    } catch (e) {
        logged.push('threw ' + e.message);
    } finally {
        console.log = log;
    }
    const comments = [...code.matchAll(/console\.log\(.*\);\s*\/\/ (.*)$/gm)].map((m) => m[1]);
    arraysEqual('the usage example in the module comment runs and prints what it says',
                logged, [...comments, ...promised]);
}

/* ------------------------------------------------------------------------ */
/* a folder of vectors                                                      */

/* Every *.json below dir except vectors/schema.json, the JSON Schema that
   lives beside the suite. */
function walk(dir, top = true) {
    const out = [];
    for (const name of readdirSync(dir).sort()) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) out.push(...walk(p, false));
        else if (name.endsWith('.json') && !(top && name === 'schema.json')) out.push(p);
    }
    return out;
}

function flipFirstDefined(v, buffers) {
    /* flips the lowest bit of the first element with a single expected value; returns [output, coordinate] */
    for (let n = 0; n < v.outputs.length; n++) {
        const t = v.outputs[n];
        if (!t.expected) continue;
        const strides = t.strides || M.packedStrides(t.sizes);
        for (let i = 0; i < t.expected.bits.length; i++) {
            if (t.expected.kind && t.expected.kind[i] !== M.EXPECT_VALUE) continue;
            const c = M.coordinateOf(t.sizes, i);
            const off = c.reduce((s, x, d) => s + x * strides[d], 0) * t.esize;
            buffers[n][off] ^= 1;
            return [t.name, c];
        }
    }
    return null;
}

/* A deliberately naive model of the five operators on logical elements
 * (docs/rules.md: R-GE-6, R-SC-9, R-GN-9, R-NZ-8..14, D1/D2, D4), so that
 * outputs given only by their digest can be checked too. Returns the output
 * elements in binding order, or throws on an out-of-range index under the
 * strict policy. */
function model(v, flush = false) {
    const el = (t) => M.logicalElements(v, t);
    const lin = (sizes, c) => c.reduce((a, x, d) => a * sizes[d] + x, 0);
    const index = (t, bits, s) => {
        let x = BigInt(M.bitsToValue(t.dtype, bits));
        if (x < 0n) x += BigInt(s);                               /* signed types only can be negative */
        if (x < 0n || x >= BigInt(s)) {
            if (v.oob !== 'clamp') throw new Error(`index ${M.bitsToValue(t.dtype, bits)} out of range for size ${s}`);
            x = x < 0n ? 0n : BigInt(s - 1);
        }
        return Number(x);
    };
    const T = v.tensors;
    if (v.op === 'GATHER_ELEMENTS' || v.op === 'SCATTER_ELEMENTS') {
        const a = v.attributes.Axis, input = el(T.InputTensor), idx = el(T.IndicesTensor);
        if (v.op === 'GATHER_ELEMENTS') {
            const out = M.newBitsArray(T.OutputTensor.dtype, idx.length);
            for (let i = 0; i < idx.length; i++) {
                const c = M.coordinateOf(T.IndicesTensor.sizes, i);
                c[a] = index(T.IndicesTensor, idx[i], T.InputTensor.sizes[a]);
                out[i] = input[lin(T.InputTensor.sizes, c)];
            }
            return [out];
        }
        const upd = el(T.UpdatesTensor), out = input.slice();
        for (let i = 0; i < idx.length; i++) {
            const c = M.coordinateOf(T.IndicesTensor.sizes, i);
            c[a] = index(T.IndicesTensor, idx[i], T.OutputTensor.sizes[a]);
            out[lin(T.OutputTensor.sizes, c)] = upd[i];
        }
        return [out];
    }
    if (v.op === 'GATHER_ND' || v.op === 'GATHER_ND1') {
        const m = v.attributes.InputDimensionCount, q = v.attributes.IndicesDimensionCount;
        const b = v.attributes.BatchDimensionCount ?? 0;
        const inS = T.InputTensor.sizes, ixS = T.IndicesTensor.sizes, outS = T.OutputTensor.sizes;
        const D = inS.length, k = ixS[D - 1], r = m - b - k, lead = D - (q - 1 + r);
        const input = el(T.InputTensor), idx = el(T.IndicesTensor);
        const count = outS.reduce((x, y) => x * y, 1);
        const out = M.newBitsArray(T.OutputTensor.dtype, count);
        for (let i = 0; i < count; i++) {
            const o = M.coordinateOf(outS, i);
            const beta = o.slice(lead, lead + b), g = o.slice(lead + b, lead + q - 1), sl = o.slice(lead + q - 1);
            const t = [];
            for (let j = 0; j < k; j++) {
                const ic = [...Array(D - q).fill(0), ...beta, ...g, j];
                t.push(index(T.IndicesTensor, idx[lin(ixS, ic)], inS[D - m + b + j]));
            }
            out[i] = input[lin(inS, [...Array(D - m).fill(0), ...beta, ...t, ...sl])];
        }
        return [out];
    }
    /* NONZERO_COORDINATES */
    const t = T.InputTensor, info = M.DTYPES[t.dtype];
    const input = flush ? flushSubnormals(t.dtype, el(t)).bits : el(t);
    const cs = T.OutputCoordinatesTensor.sizes, N = cs[cs.length - 1], M_ = cs[cs.length - 2];
    const coords = new Uint32Array(M_ * N);
    const sign = info.kind === 'float' ? (info.esize === 8 ? 1n << 63n : 2 ** (8 * info.esize - 1)) : 0;
    let n = 0;
    for (let i = 0; i < input.length; i++) {
        const x = input[i];
        const zero = info.kind !== 'float' ? (x === 0 || x === 0n)
            : info.esize === 8 ? (x & ~sign & ((1n << 64n) - 1n)) === 0n : (x >>> 0) % sign === 0;
        if (zero) continue;
        const c = M.coordinateOf(t.sizes, i);
        coords.set(c.slice(c.length - N), n * N);
        n++;
    }
    return [new Uint32Array([n]), coords];
}

/* R-NZ-10: the elements with every subnormal (exponent field 0, fraction not
   0) replaced by a zero of the same sign, and how many there were. */
function flushSubnormals(dtype, bits) {
    const info = M.DTYPES[dtype];
    if (info.kind !== 'float') return {bits, count: 0};
    const out = bits.slice();
    let count = 0;
    const w = BigInt(info.bits), fraction = {FLOAT16: 10n, FLOAT32: 23n, FLOAT64: 52n}[dtype];
    for (let i = 0; i < out.length; i++) {
        const b = BigInt(out[i]);
        const sign = b >> (w - 1n), exponent = (b >> fraction) & ((1n << (w - 1n - fraction)) - 1n);
        if (exponent === 0n && (b & ((1n << fraction) - 1n)) !== 0n) {
            const z = sign << (w - 1n);
            out[i] = info.esize === 8 ? z : Number(z);
            count++;
        }
    }
    return {bits: out, count};
}

/* The variants a vector must state, as the JS model finds them: [[name, rule, outputs]]. */
function modelledVariants(v) {
    if (v.op !== 'NONZERO_COORDINATES' || M.DTYPES[v.tensors.InputTensor.dtype].kind !== 'float') return [];
    if (!flushSubnormals(v.tensors.InputTensor.dtype, M.logicalElements(v, 'InputTensor')).count) return [];
    const outs = model(v, true).map((bits, n) => M.layOut(v, v.outputs[n], bits));
    return M.checkOutputs(v, outs, {variants: false}).ok ? [] : [['subnormals_flushed', 'R-NZ-10', outs]];
}

function testFolder(dir) {
    const files = walk(dir);
    check(`${dir} holds vectors`, files.length > 0, 'no *.json file');
    const NAME_SHAPE = /^[a-z0-9_]+\/[a-z0-9]+\/[1-8]d\/[a-z0-9_\-./]+$/;
    for (const f of files) {
        const rel = relative(dir, f);
        let v;
        try {
            v = M.loadVector(f);
        } catch (e) {
            check(`${rel}: loads`, false, e.message);
            continue;
        }
        check(`${rel}: loads`, true);
        check(`${rel}: name has the shape <operator>/<dtype>/<rank>d/<scenario>`, NAME_SHAPE.test(v.name), v.name);
        const prefixes = [v.operator, v.op, v.op === 'SCATTER_ELEMENTS' ? 'SCATTER' : v.op].map((o) => o.toLowerCase() + '/');
        check(`${rel}: name starts with the operator`, prefixes.some((p) => v.name.startsWith(p)), v.name);
        if (v.expectError) continue;
        let inputs;
        try {
            inputs = M.buildInputBuffers(v);
            check(`${rel}: input buffers`, inputs.every((b, n) => BigInt(b.length) === v.inputs[n].totalBytes));
        } catch (e) {
            check(`${rel}: input buffers`, false, e.message);
            continue;
        }
        let modelled = null;
        try {
            modelled = model(v);
        } catch (e) {
            check(`${rel}: the JS model computes the case`, false, e.message);
        }
        if (modelled) {
            const r = M.checkOutputs(v, modelled.map((bits, n) => M.layOut(v, v.outputs[n], bits)), {variants: false});
            check(`${rel}: the JS model's outputs pass the check`, r.ok, r.message);
        }
        try {
            const want = modelledVariants(v);
            arraysEqual(`${rel}: the variants are those the JS model finds`, v.variants.map((x) => `${x.name} ${x.rule}`),
                        want.map(([name, rule]) => `${name} ${rule}`));
            for (const [name, , outs] of want) {
                const r = M.checkOutputs(v, outs);
                check(`${rel}: the JS model's flushed outputs pass as the variant ${name}`, r.ok && r.variant === name, r.message);
            }
            for (const x of v.variants.filter((y) => y.outputs.every((t) => t.expected))) {
                const r = M.checkOutputs(v, M.expectedOutputBuffers(v, x.name));
                check(`${rel}: the expected outputs of variant ${x.name} pass as it`, r.ok && r.variant === x.name, r.message);
            }
        } catch (e) {
            check(`${rel}: the JS model computes the variants`, false, e.message);
        }
        if (v.outputs.every((t) => t.expected)) {
            const outs = M.expectedOutputBuffers(v);
            const r = M.checkOutputs(v, outs);
            check(`${rel}: its expected outputs pass the check`, r.ok, r.message);
            const where = flipFirstDefined(v, outs);
            if (where) {
                const rm = M.checkOutputs(v, outs);
                const o = rm.outputs.find((x) => x.name === where[0]);
                check(`${rel}: a mutated copy fails at ${where[0]}[${where[1].join(', ')}]`,
                      !rm.ok && o.first && o.first.coordinate.join() === where[1].join(), rm.message);
            }
        } else {
            /* an output given by its digest only: zero buffers must fail unless the digest is that of zeros */
            const zeros = v.outputs.map((t) => new Uint8Array(Number(t.totalBytes)));
            const r = M.checkOutputs(v, zeros);
            const zeroDigestOk = v.outputs.every((t) => t.expected ||
                M.xxh3Hex(new Uint8Array(Number(t.count) * t.esize)) === t.xxh3);
            check(`${rel}: zero outputs ${zeroDigestOk ? 'pass' : 'fail'} the digest check`, r.ok === zeroDigestOk, r.message);
        }
    }
    const manifest = join(dir, 'MANIFEST');
    if (existsSync(manifest)) {
        const lines = readFileSync(manifest, 'utf8').split('\n').filter(Boolean);
        const paths = lines.map((l) => l.slice(18));
        check('MANIFEST lines are "<16 hex>  <path>"', lines.every((l) => /^[0-9a-f]{16} {2}\S/.test(l)));
        check('MANIFEST is sorted by path', paths.every((p, i) => i === 0 || paths[i - 1] < p));
        const present = files.map((f) => relative(dir, f).split('\\').join('/')).sort();
        arraysEqual('MANIFEST lists exactly the vectors present', [...paths].sort(), present);
        let badDigest = 0;
        for (const l of lines) {
            const p = join(dir, l.slice(18));
            if (!existsSync(p) || M.xxh3Hex(readFileSync(p)) !== l.slice(0, 16)) badDigest++;
        }
        check('MANIFEST digests match the files', badDigest === 0, `${badDigest} differ`);
    }
}

/* ------------------------------------------------------------------------ */
section('hostile files and vectors');

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BROADCAST = join(ROOT, 'tests', 'cross', 'loader', 'broadcast_4294967295_elements.json');
const CLI = fileURLToPath(moduleUrl);
/* The acceptance is a second and 100 MB; the time asserted leaves room for
   a loaded machine, and both are printed. */
const SECONDS = 3, MEGABYTES = 100;

/* A vector broadcasting one float32 to 65535 x 65537 logical elements: a
   child process loads it, builds its inputs, judges outputs and reads an
   element on demand, and reports its own time and peak resident size. */
if (existsSync(BROADCAST)) {
    const script = `
        const M = await import(${JSON.stringify(moduleUrl)});
        const start = performance.now();
        const v = M.loadVector(${JSON.stringify(BROADCAST)});
        const inputs = M.buildInputBuffers(v);
        const good = M.checkOutputs(v, M.expectedOutputBuffers(v)).ok;
        const out = M.expectedOutputBuffers(v);
        out[0][4] ^= 1;
        const bad = !M.checkOutputs(v, out).ok;
        const view = M.logicalView(v, 'InputTensor');
        const last = view.at(view.length - 1);
        let refused = '';
        try { M.logicalElements(v, 'InputTensor'); } catch (e) { refused = e.message; }
        const seconds = (performance.now() - start) / 1000;
        console.log(JSON.stringify({size: inputs[0].length, good, bad, last, length: view.length, refused, seconds,
                                    mib: process.resourceUsage().maxRSS / 1024}));`;
    const r = spawnSync(process.execPath, ['--max-old-space-size=200', '--input-type=module', '-e', script],
                        {encoding: 'utf8', timeout: 60000});
    let m = null;
    try { m = JSON.parse(r.stdout); } catch (e) { /* reported below */ }
    check('broadcast of 2^32-1 elements: the child reports', m !== null, `${r.stderr || r.stdout}`.slice(-300));
    if (m) {
        console.log(`# broadcast of 2^32-1 elements: loaded and checked in ${m.seconds.toFixed(3)} s, peak ${Math.round(m.mib)} MiB`);
        check('broadcast: a 4-byte buffer, outputs judged, the last element read on demand',
              m.size === 4 && m.good && m.bad && m.last === 0x3f800000 && m.length === 2 ** 32 - 1, JSON.stringify(m));
        check('broadcast: expanding its logical elements is refused under the memory cap',
              /\$\.tensors\.InputTensor: the case needs more than the memory cap of 4294967296 bytes/.test(m.refused), m.refused);
        check(`broadcast: under ${SECONDS} s`, m.seconds < SECONDS, `${m.seconds} s`);
        check(`broadcast: under ${MEGABYTES} MB`, m.mib < MEGABYTES, `${m.mib} MiB`);
    }
}

/* What is not a regular file is refused at once, by loadVector and by the
   command line (run under timeout, so that a hang fails instead of hanging). */
{
    const tmp = mkdtempSync(join(tmpdir(), 'dmlref-loader-'));
    const fifo = join(tmp, 'fifo');
    const made = spawnSync('mkfifo', [fifo]);
    const cases = [['/dev/zero', 'a character device'], [tmp, 'a directory']];
    if (made.status === 0) cases.unshift([fifo, 'a FIFO']);
    else check('mkfifo makes a FIFO', false, String(made.stderr));
    for (const [path, kind] of cases) {
        throws(`loadVector(${kind}) is refused at once`, () => M.loadVector(path),
               new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not a regular file \\(${kind}\\): vectors are read from regular files only$`));
        const r = spawnSync('timeout', ['20', process.execPath, CLI, path], {encoding: 'utf8'});
        const lines = r.stdout.trim().split('\n');
        check(`the command line on ${kind}: exit 1, one line`, r.status === 1 && lines.length === 1 &&
              lines[0].includes(`not a regular file (${kind})`), `exit ${r.status}: ${r.stdout}${r.stderr}`);
    }
    writeFileSync(join(tmp, 'big.json'), ' '.repeat(101));
    throws('a file past the limit is refused', () => M.readRegularFile(join(tmp, 'big.json'), 100), /big\.json: larger than 100 bytes$/);
    rmSync(tmp, {recursive: true, force: true});
}

/* The number token -0, wherever it is, with dmlref's own message; -0.0,
   "-0" and 1e-0 are no such token. */
{
    const doc = `{"format": "dmlref-vector-1", "name": "gather_elements/float32/2d/doc_example",
  "operator": "GATHER_ELEMENTS", "attributes": {"Axis": 0}, "tensors": {
    "InputTensor": {"dtype": "FLOAT32", "sizes": [3, 3], "data": [1, 2, 3, 4, 5, 6, 7, 8, 9]},
    "IndicesTensor": {"dtype": "UINT32", "sizes": [2, 3], "data": [1, 2, 0, 2, 0, 0]},
    "OutputTensor": {"dtype": "FLOAT32", "sizes": [2, 3], "expected": [4, 8, 3, 7, 2, 3]}}}`;
    const edits = [
        ['an INT32 element', '"dtype": "UINT32", "sizes": [2, 3], "data": [1, 2, 0, 2, 0, 0]',
         '"dtype": "INT32", "sizes": [2, 3], "data": [1, 2, -0, 2, 0, 0]'],
        ['a FLOAT32 element', '[1, 2, 3, 4, 5, 6, 7, 8, 9]', '[1, 2, 3, 4, -0, 6, 7, 8, 9]'],
        ['an attribute', '"Axis": 0', '"Axis": -0'],
        ['an expected element', '[4, 8, 3, 7, 2, 3]', '[4, 8, 3, 7, 2, -0]'],
    ];
    for (const [where, from, to] of edits) {
        const text = doc.replace(from, to);
        const at = text.indexOf('-0');
        const line = text.slice(0, at).split('\n').length;
        const column = at - text.lastIndexOf('\n', at - 1);
        const want = `m.json: $: line ${line}, column ${column}: the number -0 is ambiguous in JSON readers: ` +
                     'write -0.0 (negative zero) or 0';
        const e = throws(`-0 in ${where} is refused`, () => M.parseVector(text, {source: 'm.json'}), /-0 is ambiguous/);
        equal(`-0 in ${where}: dmlref's message`, e && e.message, want);
    }
    for (const fine of ['-0.0', '-0e0', '1e-0']) {
        noThrow(`${fine} is no number token -0`, () => M.parseVector(doc.replace('[1, 2, 3, 4, 5,', `[1, 2, 3, 4, ${fine},`)));
    }
    throws('"-0" is no -0 token: refused as a string in a FLOAT32 tensor', () =>
        M.parseVector(doc.replace('[1, 2, 3, 4, 5,', '[1, 2, 3, 4, "-0",')), /^<vector>: \$\.tensors\.InputTensor\.data\[4\]: /);
}

/* tests/cli/malformed and seeded mutations of vectors: only VectorError escapes,
   and each names the source and a JSON path. */
{
    let seed = 44;
    const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const corpus = [];
    const malformed = join(ROOT, 'tests', 'cli', 'malformed');
    if (existsSync(malformed))
        for (const name of readdirSync(malformed).sort())
            if (name.endsWith('.json')) corpus.push([name, readFileSync(join(malformed, name))]);
    const values = ['null', 'true', '"x"', '{}', '[]', '[[1]]', '{"any_of": []}', '1e308', '1e999',
                    '18446744073709551616', '-9223372036854775809', '4294967296', '0.5', '"0x7fc00000"',
                    '['.repeat(50) + ']'.repeat(50), '"' + 'a'.repeat(300) + '"', '-1', '1.0', '"inf"', '"nan"'];
    const seeds = ['vectors/gather_elements/float32/2d/doc_example.json', 'tests/cross/loader/broadcast_4294967295_elements.json',
                   'vectors/nonzero_coordinates/float32/1d/subnormal.json', 'vectors/scatter_elements/int64/3d/axis1_negative.json',
                   'vectors/gather_nd1/uint8/3d/error_index_out_of_range.json'].map((p) => join(ROOT, p)).filter(existsSync);
    for (const file of seeds) {
        const text = readFileSync(file, 'utf8');
        for (let i = 0; i < 20; i++) corpus.push([`${file}~cut${i}`, text.slice(0, rand(text.length))]);
        /* a value token (a number, string or literal after ':' or ',' or '[')
           replaced by another of another type, or wrapped one level deeper */
        const tokens = [...text.matchAll(/(?<=[:,[]\s*)(?:-?[0-9][0-9.eE+-]*|"(?:[^"\\]|\\.)*"|true|false|null)/g)];
        for (let i = 0; i < 40 && tokens.length; i++) {
            const m = tokens[rand(tokens.length)];
            const by = rand(4) === 0 ? `[${m[0]}]` : values[rand(values.length)];
            corpus.push([`${file}~edit${i}`, text.slice(0, m.index) + by + text.slice(m.index + m[0].length)]);
        }
    }
    const leaks = [], unnamed = [];
    for (const [name, text] of corpus) {
        try {
            const v = M.parseVector(text, {source: name, memoryCap: 256 * 2 ** 20});
            if (!v.expectError) {
                M.buildInputBuffers(v);
                if (v.outputs.every((t) => t.expected)) M.checkOutputs(v, M.expectedOutputBuffers(v));
            }
        } catch (e) {
            if (!(e instanceof M.VectorError)) leaks.push(`${name}: ${e.name}: ${e.message}`);
            else if (!e.message.startsWith(`${name}: $`) && !e.message.startsWith(`${name}:`)) unnamed.push(`${name}: ${e.message}`);
        }
    }
    check(`${corpus.length} hostile vectors: only VectorError escapes`, !leaks.length, leaks.slice(0, 5).join('; '));
    check(`${corpus.length} hostile vectors: each error names the file`, !unnamed.length, unnamed.slice(0, 5).join('; '));
}

if (process.argv[2]) testFolder(process.argv[2]);

console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed ? 1 : 0;
