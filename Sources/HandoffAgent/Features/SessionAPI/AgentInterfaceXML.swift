// SPDX-License-Identifier: MIT OR Apache-2.0

extension AgentSessionAPI {
    /// `org.libhandoff.Agent1` for Introspect (docs/agent.md §15).
    static let xml = """
      <interface name="org.libhandoff.Agent1">
        <property name="Version" type="u" access="read"/>
        <property name="State" type="s" access="read"/>
        <property name="ThisDevice" type="a{sv}" access="read"/>
        <property name="Offers" type="aa{sv}" access="read"/>
        <property name="Devices" type="aa{sv}" access="read"/>
        <property name="Recent" type="aa{sv}" access="read"/>
        <method name="Continue"><arg name="id" type="s" direction="in"/><arg name="platform_data" type="a{sv}" direction="in"/></method>
        <method name="ContinueRecent"><arg name="id" type="s" direction="in"/><arg name="platform_data" type="a{sv}" direction="in"/></method>
        <method name="Pause"/>
        <method name="Resume"/>
        <method name="SetDevice"><arg name="id" type="s" direction="in"/><arg name="settings" type="a{sv}" direction="in"/></method>
        <method name="SetApp"><arg name="app_id" type="s" direction="in"/><arg name="settings" type="a{sv}" direction="in"/></method>
        <method name="Pair"><arg name="pairing" type="o" direction="out"/></method>
        <signal name="Continued"><arg name="id" type="s"/><arg name="ok" type="b"/><arg name="message" type="s"/></signal>
      </interface>
    """
}
