//! The combinational logic array of a 002 processing unit (seed
//! Zhao, Wang, Lu and Dai, "Hierarchical Optimizations for High Speed Implementation of Modular Exponentiation in ASIC", section 4, Fig. 4(b)) as Verilog text, for
//! [`super`].

/// Carry-save netlist text with fresh wire names.
struct Net {
    /// `reg` declarations
    decls: String,
    /// blocking assignments of the `always @*` block
    text: String,
    next: usize,
}

impl Net {
    fn wire(&mut self, width: usize, expr: &str) -> String {
        let name = format!("n{}", self.next);
        self.next += 1;
        self.decls.push_str(&format!("  reg [{}:0] {name};\n", width - 1));
        self.text.push_str(&format!("    {name} = {expr};\n"));
        name
    }

    /// Wallace tree on rows of `width` bits: each level takes the rows three
    /// at a time through a row of full adders (sum `x^y^z`, carry
    /// `maj(x,y,z) << 1`), until two rows are left.  Carries out of bit
    /// `width − 1` are dropped: every caller's total is below `2^width`.
    /// Written as vector operations (fast in Icarus); Yosys removes the
    /// adders whose inputs are constant zeros (the shifted partial products).
    fn wallace(&mut self, mut rows: Vec<String>, width: usize) -> [String; 2] {
        while rows.len() > 2 {
            let mut next = Vec::new();
            for ch in rows.chunks(3) {
                if let [x, y, z] = ch {
                    next.push(self.wire(width, &format!("{x} ^ {y} ^ {z}")));
                    let maj = format!("(({x} & {y}) | ({x} & {z}) | ({y} & {z})) << 1");
                    next.push(self.wire(width, &maj));
                } else {
                    next.extend(ch.iter().cloned());
                }
            }
            rows = next;
        }
        while rows.len() < 2 {
            rows.push(format!("{width}'d0"));
        }
        [rows[0].clone(), rows[1].clone()]
    }
}

/// 002 Fig. 4(b): the combinational logic array of a PU.  AND arrays and
/// Wallace tree 0 reduce `q·m~_j + qMC` and `a·b'_j + aB'C` to carry-save
/// pairs; a carry generator (CG) takes the carry out of each lower half and
/// selects the upper half (`qMC_o`, `aB'C_o`: both sums precomputed, carry
/// select); Wallace tree 1 reduces the four lower halves with `r` and `C`,
/// one adder gives `r_o`, and the carry amender takes the CG carries back out
/// of the top bits to give `C_o`, exactly Alg. 2's `C_ij <= 3`:
/// `x1 = r + C + lo(qM~) + lo(aB') + 2^k(cg_q + cg_a)`, so
/// `C_o = ⌊x1 / 2^k⌋ − cg_q − cg_a`.
pub(super) fn cla_rtl(k: u32) -> String {
    let ku = k as usize;
    let mut net = Net {
        decls: String::new(),
        text: String::new(),
        next: 0,
    };
    let w0 = 2 * ku;
    let mut pairs = Vec::new();
    for (x, y, cin) in [("q", "mt", "qmc"), ("a", "b", "abc")] {
        // AND array (row i: x_i * y << i) and Wallace tree 0 with the
        // long-multiplication carry: (2^k-1)^2 + 2^k-1 < 2^(2k)
        let mut rows = vec![net.wire(w0, cin)];
        for i in 0..ku {
            rows.push(net.wire(w0, &format!("({{{k}{{{x}[{i}]}}}} & {y}) << {i}")));
        }
        pairs.push(net.wallace(rows, w0));
    }
    let tree0 = std::mem::take(&mut net.text);
    // Wallace tree 1: the four lower halves, r and C; the sum is below
    // 3·2^k + 3 + 2^(k+1) (the two CG carries) < 2^(k+3)
    let w1 = ku + 3;
    let rows1: Vec<String> = ["qm_s", "qm_k", "ab_s", "ab_k", "rin", "c"]
        .iter()
        .map(|r| {
            let lo = if r.len() == 4 {
                format!("{r}[{}:0]", k - 1)
            } else {
                r.to_string()
            };
            net.wire(w1, &lo)
        })
        .collect();
    let [s1, c1] = net.wallace(rows1, w1);
    let v = format!(
        "// 002 Fig. 4(b): AND arrays, Wallace tree 0 (q*m~ + qMC, a*b' + aB'C), carry generators\n\
         // and carry-select upper halves, Wallace tree 1 (four lower halves, r, C), one k-bit\n\
         // adder and the carry amender. Combinational (one always block: one evaluation per\n\
         // clock in an event-driven simulator).\n\
         module redc_hrm_cla (\n\
         \x20 input wire [{km}:0] q, mt, qmc, a, b, abc, rin,\n\
         \x20 input wire [1:0] c,\n\
         \x20 output reg [{km}:0] qmc_o, abc_o, r_o,\n\
         \x20 output reg [1:0] c_o, top\n\
         );\n\
         {decls}\
         \x20 reg [{k2m}:0] qm_s, qm_k, ab_s, ab_k;\n\
         \x20 reg [{k}:0] qml, abl;\n\
         \x20 reg cgq, cga;\n\
         \x20 reg [{km}:0] qmh, abh;\n\
         \x20 reg [{k2}:0] w1s, w1c, x1;\n\
         \x20 reg [2:0] amend;\n\
         \x20 always @* begin\n\
         {tree0}\
         \x20   qm_s = {qs}; qm_k = {qc}; // Wallace tree 0 rows\n\
         \x20   ab_s = {as_}; ab_k = {ac};\n\
         {tree1}\
         \x20   // carry generators: carry out of the lower halves\n\
         \x20   qml = qm_s[{km}:0] + qm_k[{km}:0];\n\
         \x20   abl = ab_s[{km}:0] + ab_k[{km}:0];\n\
         \x20   cgq = qml[{k}]; cga = abl[{k}];\n\
         \x20   // carry select: both upper sums precomputed\n\
         \x20   qmh = qm_s[{k2m}:{k}] + qm_k[{k2m}:{k}];\n\
         \x20   abh = ab_s[{k2m}:{k}] + ab_k[{k2m}:{k}];\n\
         \x20   qmc_o = cgq ? qmh + 1'b1 : qmh;\n\
         \x20   abc_o = cga ? abh + 1'b1 : abh;\n\
         \x20   // Wallace tree 1 and the k-bit adder; the carry amender removes the CG carries\n\
         \x20   w1s = {s1}; w1c = {c1};\n\
         \x20   x1 = w1s + w1c;\n\
         \x20   r_o = x1[{km}:0];\n\
         \x20   amend = x1[{k2}:{k}] - cgq - cga;\n\
         \x20   c_o = amend[1:0];\n\
         \x20   top = qmc_o[1:0] + abc_o[1:0] + c_o; // (qMC_o + aB'C_o + C_o) mod 4: the top PU's carry\n\
         \x20 end\n\
         endmodule\n",
        decls = net.decls,
        tree1 = net.text,
        km = k - 1,
        k2 = k + 2,
        k2m = 2 * k - 1,
        qs = pairs[0][0],
        qc = pairs[0][1],
        as_ = pairs[1][0],
        ac = pairs[1][1],
    );
    v
}
