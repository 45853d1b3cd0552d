import Foundation

/// The session state machine as an inline SVG: states in columns by their distance from the initial state,
/// transitions as curves between them, each coloured by the worst status of the requirements citing it.
/// Parallel transitions bow apart, and labels are placed greedily where they overlap nothing else.
enum StateMachineDiagram {
    struct Point {
        var x: Double
        var y: Double
    }

    struct Box {
        var x: Double
        var y: Double
        var width: Double
        var height: Double

        func intersects(_ other: Box) -> Bool {
            x < other.x + other.width && other.x < x + width && y < other.y + other.height && other.y < y + height
        }
    }

    static let nodeWidth = 156.0
    static let nodeHeight = 50.0
    static let columnGap = 330.0
    static let rowGap = 260.0
    static let margin = 70.0
    static let labelCharacterWidth = 6.7
    static let labelHeight = 14.0

    static func render(_ machine: StateMachineReport) -> String {
        guard !machine.states.isEmpty else { return "<p>The spec has no state machine.</p>" }
        let positions = layout(machine)
        let width = (positions.values.map(\.x).max() ?? 0) + nodeWidth / 2 + margin
        let height = (positions.values.map(\.y).max() ?? 0) + nodeHeight / 2 + margin
        var svg: [String] = []
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram\" viewBox=\"0 0 \(n(width)) \(n(height))\" "
                   + "width=\"\(n(width))\" height=\"\(n(height))\" role=\"img\" aria-labelledby=\"sm-title\">")
        svg.append("<title id=\"sm-title\">Session state machine: states and transitions coloured by the results of the requirements citing them</title>")
        svg.append("<defs>")
        for status in RequirementReportStatus.allCases {
            svg.append("<marker id=\"arrow-\(status.rawValue)\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"8\" "
                       + "markerHeight=\"8\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"\(StatusPalette.stroke(status))\"/></marker>")
        }
        svg.append("</defs>")

        var occupied = positions.values.map { Box(x: $0.x - nodeWidth / 2, y: $0.y - nodeHeight / 2, width: nodeWidth, height: nodeHeight) }
        // Transitions between the same two states bow apart, symmetrically about the straight line.
        var groups: [String: [Int]] = [:]
        for (index, transition) in machine.transitions.enumerated() {
            groups[[transition.from, transition.to].sorted().joined(separator: "\u{0}"), default: []].append(index)
        }
        var edges: [String] = []
        var labels: [String] = []
        for (index, transition) in machine.transitions.enumerated() {
            guard let from = positions[transition.from], let to = positions[transition.to] else { continue }
            let status = transition.status
            let colour = StatusPalette.stroke(status)
            let dash = StatusPalette.dashed(status) ? " stroke-dasharray=\"6 4\"" : ""
            let tooltip = "<title>\(esc(transition.id)): \(esc(transition.from)) → \(esc(transition.to)) on \(esc(transition.event)); \(status.rawValue)</title>"
            let start: Point
            let control: Point
            let end: Point
            if transition.from == transition.to {
                // A loop above the state.
                start = Point(x: from.x - 24, y: from.y - nodeHeight / 2)
                end = Point(x: from.x + 24, y: from.y - nodeHeight / 2)
                control = Point(x: from.x, y: from.y - nodeHeight / 2 - 90)
            } else {
                let key = [transition.from, transition.to].sorted().joined(separator: "\u{0}")
                let group = groups[key] ?? [index]
                let position = Double(group.firstIndex(of: index) ?? 0)
                var offset = (position - Double(group.count - 1) / 2) * 64
                if group.count == 1 { offset = 0 }
                // Offsets are measured on the canonical direction, so opposite transitions take opposite sides.
                let canonicalFrom = transition.from < transition.to ? from : to
                let canonicalTo = transition.from < transition.to ? to : from
                let dx = canonicalTo.x - canonicalFrom.x
                let dy = canonicalTo.y - canonicalFrom.y
                let length = max(1, (dx * dx + dy * dy).squareRoot())
                let normal = Point(x: -dy / length, y: dx / length)
                let middle = Point(x: (from.x + to.x) / 2, y: (from.y + to.y) / 2)
                control = Point(x: middle.x + normal.x * offset * 2, y: middle.y + normal.y * offset * 2)
                start = boundary(of: from, toward: control)
                end = boundary(of: to, toward: control)
            }
            edges.append("<g class=\"transition\">\(tooltip)<path d=\"M\(n(start.x)),\(n(start.y)) Q\(n(control.x)),\(n(control.y)) "
                         + "\(n(end.x)),\(n(end.y))\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.2\"\(dash) "
                         + "marker-end=\"url(#arrow-\(status.rawValue))\"/></g>")
            // The label goes at the first point along the curve where it overlaps no state and no other label.
            let text = transition.id
            let labelWidth = Double(text.count) * labelCharacterWidth + 6
            var placed: Box?
            for t in [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78] {
                let point = bezier(start, control, end, t)
                let box = Box(x: point.x - labelWidth / 2, y: point.y - labelHeight / 2, width: labelWidth, height: labelHeight)
                if !occupied.contains(where: { $0.intersects(box) }) {
                    placed = box
                    break
                }
            }
            let box = placed ?? {
                let point = bezier(start, control, end, 0.5)
                return Box(x: point.x - labelWidth / 2, y: point.y - labelHeight / 2, width: labelWidth, height: labelHeight)
            }()
            occupied.append(box)
            labels.append("<g class=\"label\">\(tooltip)<rect x=\"\(n(box.x))\" y=\"\(n(box.y))\" width=\"\(n(box.width))\" "
                          + "height=\"\(n(box.height))\" rx=\"3\" fill=\"#ffffff\" fill-opacity=\"0.92\"/>"
                          + "<text x=\"\(n(box.x + box.width / 2))\" y=\"\(n(box.y + box.height - 3.5))\" text-anchor=\"middle\" "
                          + "class=\"edge-label\" fill=\"\(colour)\">\(esc(text))</text></g>")
        }
        svg += edges

        // The initial state's entry arrow.
        if let initial = positions[machine.initial] {
            let dotX = initial.x - nodeWidth / 2 - 46
            svg.append("<circle cx=\"\(n(dotX))\" cy=\"\(n(initial.y))\" r=\"7\" fill=\"#24292f\"><title>initial state</title></circle>")
            svg.append("<path d=\"M\(n(dotX + 7)),\(n(initial.y)) L\(n(initial.x - nodeWidth / 2 - 2)),\(n(initial.y))\" "
                       + "stroke=\"#24292f\" stroke-width=\"2\" marker-end=\"url(#arrow-notTestable)\"/>")
        }
        for state in machine.states {
            guard let center = positions[state.id] else { continue }
            let status = state.status
            let dash = StatusPalette.dashed(status) ? " stroke-dasharray=\"6 4\"" : ""
            let invariants = state.invariants.isEmpty ? "no invariants" : state.invariants.joined(separator: ", ")
            svg.append("<g class=\"state\"><title>\(esc(state.id)): \(status.rawValue) (invariants: \(esc(invariants)))</title>"
                       + "<rect x=\"\(n(center.x - nodeWidth / 2))\" y=\"\(n(center.y - nodeHeight / 2))\" width=\"\(n(nodeWidth))\" "
                       + "height=\"\(n(nodeHeight))\" rx=\"12\" fill=\"\(StatusPalette.fill(status))\" stroke=\"\(StatusPalette.stroke(status))\" "
                       + "stroke-width=\"2.5\"\(dash)/>"
                       + "<text x=\"\(n(center.x))\" y=\"\(n(center.y - 3))\" text-anchor=\"middle\" class=\"state-name\">\(esc(state.id))</text>"
                       + "<text x=\"\(n(center.x))\" y=\"\(n(center.y + 14))\" text-anchor=\"middle\" class=\"state-status\" "
                       + "fill=\"\(StatusPalette.stroke(status))\">\(status.rawValue)</text></g>")
        }
        svg += labels
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// Columns by breadth-first distance from the initial state (unreachable states last), rows in spec order.
    static func layout(_ machine: StateMachineReport) -> [String: Point] {
        var layer: [String: Int] = [machine.initial: 0]
        var queue = [machine.initial]
        while !queue.isEmpty {
            let current = queue.removeFirst()
            for transition in machine.transitions where transition.from == current && layer[transition.to] == nil {
                layer[transition.to] = layer[current]! + 1
                queue.append(transition.to)
            }
        }
        let deepest = (layer.values.max() ?? 0) + 1
        var columns: [[String]] = Array(repeating: [], count: deepest + 1)
        for state in machine.states {
            columns[layer[state.id] ?? deepest].append(state.id)
        }
        columns.removeAll { $0.isEmpty }
        let rows = columns.map(\.count).max() ?? 1
        var positions: [String: Point] = [:]
        for (column, states) in columns.enumerated() {
            let top = Double(rows - states.count) * rowGap / 2
            for (row, state) in states.enumerated() {
                positions[state] = Point(x: margin + 46 + nodeWidth / 2 + Double(column) * columnGap,
                                         y: margin + nodeHeight / 2 + top + Double(row) * rowGap)
            }
        }
        return positions
    }

    /// Where the ray from a state's centre toward `target` leaves its box.
    static func boundary(of center: Point, toward target: Point) -> Point {
        let dx = target.x - center.x
        let dy = target.y - center.y
        guard dx != 0 || dy != 0 else { return center }
        let scaleX = dx == 0 ? Double.infinity : (nodeWidth / 2 + 2) / abs(dx)
        let scaleY = dy == 0 ? Double.infinity : (nodeHeight / 2 + 2) / abs(dy)
        let scale = min(scaleX, scaleY)
        return Point(x: center.x + dx * scale, y: center.y + dy * scale)
    }

    static func bezier(_ p0: Point, _ control: Point, _ p2: Point, _ t: Double) -> Point {
        let a = (1 - t) * (1 - t)
        let b = 2 * (1 - t) * t
        let c = t * t
        return Point(x: a * p0.x + b * control.x + c * p2.x, y: a * p0.y + b * control.y + c * p2.y)
    }

    static func n(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    static func esc(_ text: String) -> String { HTMLReportWriter.escape(text) }
}
